/* summary.c: the few numbers the exit line prints (events, peak heap, peak RSS), kept by the
 * writer thread as it drains, each flush's peak found in time order (see the merge below). The
 * heap total counts usable bytes (what the allocator set aside, as the default mode's running
 * totals do): an ALLOC slot carries the requested size and the usable size's excess over it, a
 * FREE slot the usable size (ckt_slot_size), so no table of live blocks is needed. Keeping one
 * cost a cache miss per long-lived block on its way in and out, a quarter of exact mode's
 * overhead on the benchmark (2.13 s against 1.78 s without). The table below holds only the
 * rare blocks whose excess did not fit (alignments of 64 KiB and more), by requested size. A
 * free of a block allocated before tracing began also subtracts its size; the report's replay
 * ignores such frees, so the two peaks can differ by them and by the usable excess. The
 * tracer's memory never goes through the hooks: tables are mapped directly. */
#include "ckt.h"
#include "summary.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct entry {
	uint64_t addr; /* 0 = empty */
	uint64_t size;
};

/* Written by the writer for every event it drains: each on cache lines of its own (128 bytes:
 * the adjacent-line prefetcher pairs lines), so the hooks' read-mostly globals never share a
 * line with them. */
#define CKT_OWN_LINE _Alignas(128)
static CKT_OWN_LINE struct entry *tab;
static uint64_t tab_mask, tab_used;
static int tab_broken;
CKT_OWN_LINE struct ckt_summary ckt_summary;
__attribute__((used)) static CKT_OWN_LINE char pad_after_summary;

static inline uint64_t hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return a;
}

static void put(struct entry *t, uint64_t mask, uint64_t a, uint64_t s)
{
	uint64_t i = hash(a) & mask;
	while (t[i].addr && t[i].addr != a)
		i = (i + 1) & mask;
	t[i].addr = a;
	t[i].size = s;
}

static int grow(void)
{
	uint64_t n = tab ? (tab_mask + 1) * 2 : 65536;
	struct entry *t = ckt_ownmaps_map(n * sizeof(*t), 0);
	if (!t)
		return -1;
	if (tab) {
		for (uint64_t i = 0; i <= tab_mask; i++)
			if (tab[i].addr)
				put(t, n - 1, tab[i].addr, tab[i].size);
		ckt_ownmaps_unmap(tab, (tab_mask + 1) * sizeof(*tab));
	}
	tab = t;
	tab_mask = n - 1;
	return 0;
}

static void heap_peak(void)
{
	if (ckt_summary.heap > ckt_summary.peak_heap)
		ckt_summary.peak_heap = ckt_summary.heap;
}

/* the writer could not grow a table of the exit line's running totals (the table of blocks
 * whose excess did not fit, or the merge's heap of rings): once, whichever came first; the
 * README's text */
static void oom_say(void)
{
	static int said;
	if (!said++)
		ckt_log("warning: out of memory in the writer; the exit line's peak heap is approximate "
			"from here on (the trace itself is complete)", NULL, NULL, NULL);
}

static void tab_add(uint64_t a, uint64_t s)
{
	if (!tab_broken && ((tab_used + 1) * 2 > tab_mask + 1 || !tab) && grow()) {
		tab_broken = 1;
		oom_say();
	}
	if (tab_broken) { /* counted; its free will take back its usable size instead */
		ckt_summary.heap += (int64_t)s;
		heap_peak();
		return;
	}
	uint64_t i = hash(a) & tab_mask;
	while (tab[i].addr && tab[i].addr != a)
		i = (i + 1) & tab_mask;
	if (tab[i].addr)
		ckt_summary.heap -= (int64_t)tab[i].size;
	else
		tab_used++;
	tab[i].addr = a;
	tab[i].size = s;
	ckt_summary.heap += (int64_t)s;
	heap_peak();
}

/* 1 if a is in the table */
static int tab_has(uint64_t a)
{
	uint64_t i = hash(a) & tab_mask;
	while (tab[i].addr && tab[i].addr != a)
		i = (i + 1) & tab_mask;
	return tab[i].addr != 0;
}

/* 1 if a was in the table (its bytes then leave the total), else 0 */
static int tab_del(uint64_t a)
{
	if (!tab_used)
		return 0;
	uint64_t i = hash(a) & tab_mask;
	while (tab[i].addr && tab[i].addr != a)
		i = (i + 1) & tab_mask;
	if (!tab[i].addr)
		return 0;
	ckt_summary.heap -= (int64_t)tab[i].size;
	tab_used--;
	/* backward-shift deletion keeps linear probing free of tombstones */
	uint64_t j = i;
	for (;;) {
		j = (j + 1) & tab_mask;
		if (!tab[j].addr)
			break;
		uint64_t k = hash(tab[j].addr) & tab_mask;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			tab[i] = tab[j];
			i = j;
		}
	}
	tab[i].addr = 0;
	return 1;
}

/* An allocation slot's block goes to the table: its excess did not fit, or b is the whole
 * request (2^48 bytes or more) */
static inline int tabled(uint64_t b, uint8_t fn)
{
	return (fn & CKT_SLOT_WIDE) || b >> 48 == CKT_SLACK_UNKNOWN;
}

/* the usable size of a block not tabled: the request and its excess */
static inline int64_t usable(uint64_t b)
{
	return (int64_t)((b & CKT_SLOT_SIZE_MASK) + (b >> 48));
}

static void heap_alloc(uint64_t a, uint64_t b, uint8_t fn)
{
	if (CKT_UNLIKELY(tabled(b, fn))) { /* by its request: b whole for a wide one */
		tab_add(a, fn & CKT_SLOT_WIDE ? b : b & CKT_SLOT_SIZE_MASK);
		return;
	}
	ckt_summary.heap += usable(b);
	heap_peak();
}

static void heap_free(uint64_t a, uint64_t usable)
{
	if (!tab_del(a))
		ckt_summary.heap -= (int64_t)usable;
}

static void summary_event(const struct ckt_slot *s, const struct ckt_slot *s2)
{
	ckt_summary.events++;
	switch (s->type) {
	case CKT_EV_ALLOC:
		if (!(s->fn & CKT_FN_SAMPLED)) /* a sample's bytes come with AGG */
			heap_alloc(s->a, s->b, s->fn);
		break;
	case CKT_EV_AGG:
		ckt_summary_add_heap((int64_t)s->a);
		break;
	case CKT_EV_FREE:
		if (!(s->fn & CKT_FN_SAMPLED))
			heap_free(s->a, s->b);
		break;
	case CKT_EV_REALLOC:
		heap_free(s->a, s2->b);
		heap_alloc(s2->a, s->b, s->fn);
		break;
	case CKT_EV_RSS:
		if (s->b > ckt_summary.peak_rss)
			ckt_summary.peak_rss = s->b;
		break;
	case CKT_EV_RSS_DETAIL:
		if (s->a > ckt_summary.peak_rss) /* VmHWM catches peaks between samples */
			ckt_summary.peak_rss = s->a;
		break;
	default:
		break;
	}
}

/* ---- the merge, only where the heap can reach a new peak ----
 * The peak heap needs the events of all rings in time order, and a k-way merge of them cost
 * the writer a fifth of its time in exact mode with 4 threads (perf: 6.9% of the whole
 * process against 7.4% for zstd), more with more rings, on the thread that paces exact mode
 * on many cores. Most of a run the heap is below its peak, where order does not matter. So:
 *   1. each ring is read once in its own order (sequential, no compares between rings): its
 *      heap change per event, summed per time bucket (the flush's span cut into CKT_SUM_NB
 *      pieces), with the highest its own running sum reaches within the bucket;
 *   2. the buckets in time order: the heap at a bucket's start is exact (the sum of all
 *      changes before it), and no moment inside it can be higher than that plus every ring's
 *      own highest within it. Where that bound is not above the peak, the bucket is done;
 *   3. the other buckets, runs of them at a time, are merged by time as before (a binary heap
 *      of ring positions), from the exact heap at the run's start.
 * A flush with a block of the table (its excess did not fit in the slot) merges whole, as
 * before: the table follows an address from one ring's event to another's. */
struct pos {
	const struct ckt_ring *r;
	uint64_t t, h, ts;
	uint64_t mask; /* the ring's window, read once: its line is the producer's, written at
			* every event (read per event, it cost 4% of exact mode) */
	size_t i;      /* its place in `at` */
};

/* at: every ring's position (n), then the heap (n) */
static struct pos *at, *heap;
static size_t at_cap;

#define CKT_SUM_NB 1024
static int64_t b_net[CKT_SUM_NB], b_up[CKT_SUM_NB];

static inline int less(const struct pos *a, const struct pos *b)
{
	return a->ts < b->ts;
}

static void sift_down(size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && less(&heap[l], &heap[m]))
			m = l;
		if (l + 1 < n && less(&heap[l + 1], &heap[m]))
			m = l + 1;
		if (m == i)
			return;
		struct pos x = heap[i];
		heap[i] = heap[m];
		heap[m] = x;
		i = m;
	}
}

static inline const struct ckt_slot *slot_at(const struct pos *p, uint64_t t)
{
	return &p->r->slots[t & p->mask]; /* the window cannot change before the drain */
}

/* The heap change of an event (s, and s2 for two slots) that needs no table; 1 in *table
 * where it does (then the change is not known here). */
static inline int64_t change(const struct ckt_slot *s, const struct ckt_slot *s2, int *table)
{
	switch (s->type) {
	case CKT_EV_ALLOC:
		if (s->fn & CKT_FN_SAMPLED)
			return 0;
		if (CKT_UNLIKELY(tabled(s->b, s->fn)))
			*table = 1;
		return usable(s->b);
	case CKT_EV_AGG:
		return (int64_t)s->a;
	case CKT_EV_FREE:
		if (s->fn & CKT_FN_SAMPLED)
			return 0;
		if (CKT_UNLIKELY(tab_used) && tab_has(s->a))
			*table = 1;
		return -(int64_t)s->b;
	case CKT_EV_REALLOC:
		if (CKT_UNLIKELY(tabled(s->b, s->fn) || (tab_used && tab_has(s->a))))
			*table = 1;
		return usable(s->b) - (int64_t)s2->b;
	default:
		return 0;
	}
}

/* the event at p->t counted, p->t past it: everything (all), or its heap change only (the
 * rest was counted by the first pass) */
static void take_event(struct pos *p, int all)
{
	const struct ckt_slot *s = slot_at(p, p->t);
	unsigned cnt = ckt_slot_count(s->type);
	const struct ckt_slot *s2 = cnt == 2 ? slot_at(p, p->t + 1) : NULL;
	if (all) {
		summary_event(s, s2);
	} else {
		int table = 0;
		int64_t d = change(s, s2, &table);
		if (d) {
			ckt_summary.heap += d;
			heap_peak();
		}
	}
	p->t += cnt;
}

/* Merges, in time order, the events stamped in [lo, hi) (no upper end when open) that follow
 * each ring's position in `at` (the rings' earlier events are passed over), and moves the
 * positions past them. */
static void merge_range(size_t n, uint64_t lo, uint64_t hi, int open, int all)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct pos *p = &at[i];
		while (p->t < p->h && slot_at(p, p->t)->ts < lo)
			p->t += ckt_slot_count(slot_at(p, p->t)->type);
		if (p->t < p->h && ((p->ts = slot_at(p, p->t)->ts) < hi || open))
			heap[k++] = *p;
	}
	for (size_t i = k; i-- > 0;)
		sift_down(k, i);
	while (k) {
		struct pos *top = &heap[0];
		take_event(top, all);
		if (top->t < top->h && ((top->ts = slot_at(top, top->t)->ts) < hi || open)) {
			sift_down(k, 0);
			continue;
		}
		at[top->i].t = top->t;
		heap[0] = heap[--k];
		sift_down(k, 0);
	}
}

void ckt_summary_merge(const struct ckt_cursor *c, size_t n)
{
	if (n > at_cap) {
		size_t cap = n * 2;
		struct pos *h = ckt_ownmaps_map(cap * 2 * sizeof(*at), 0);
		if (!h) {
			/* each ring in its own order, not merged by time: every event counted, the
			 * peak approximate (the line says so; the events were not counted at all,
			 * and a program that capped its address space read "0 events, peak heap 0 B") */
			oom_say();
			for (size_t i = 0; i < n; i++)
				for (struct pos p = {c[i].ring, c[i].t, c[i].h, 0, ckt_ring_mask(c[i].ring), 0}; p.t < p.h;)
					take_event(&p, 1);
			return;
		}
		if (at)
			ckt_ownmaps_unmap(at, at_cap * 2 * sizeof(*at));
		at = h;
		heap = h + cap;
		at_cap = cap;
	}
	/* pass 1: each ring on its own, and the flush's span for the buckets */
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].t >= c[i].h)
			continue;
		struct pos p = {c[i].ring, c[i].t, c[i].h, 0, ckt_ring_mask(c[i].ring), m};
		/* the last event's own stamp: an EXT slot holds an "after" stamp, or 0 (CUDA_ALLOC,
		 * CUDA_MAP) */
		const struct ckt_slot *ls = slot_at(&p, p.h - 1);
		if (ls->type == CKT_EV_EXT && p.h - 1 > p.t)
			ls = slot_at(&p, p.h - 2);
		uint64_t first = slot_at(&p, p.t)->ts, last = ls->ts;
		lo = first < lo ? first : lo;
		hi = last > hi ? last : hi;
		at[m++] = p;
	}
	if (!m)
		return;
	if (hi < lo) /* a ring that ends on CUDA_DEVICE (stamped 0): the last bucket is open */
		hi = lo;
	unsigned shift = 0;
	while (shift < 63 && (hi - lo) >> shift >= CKT_SUM_NB)
		shift++;
	uint64_t events = 0, rss = ckt_summary.peak_rss;
	size_t kmin = CKT_SUM_NB, kmax = 0;
	int table = 0;
	for (size_t i = 0; i < m && !table; i++) {
		const struct pos *p = &at[i];
		size_t cur = SIZE_MAX;
		int64_t run = 0, top = 0;
		uint64_t prev = 0;
		for (uint64_t t = p->t; t < p->h;) {
			const struct ckt_slot *s = slot_at(p, t);
			/* a ring out of time order (CUDA_DEVICE is stamped 0): its early event would
			 * count in its own bucket and again in a later run; the flush merges whole */
			if (CKT_UNLIKELY(s->ts < prev))
				table = 1;
			prev = s->ts;
			unsigned cnt = ckt_slot_count(s->type);
			const struct ckt_slot *s2 = cnt == 2 ? slot_at(p, t + 1) : NULL;
			t += cnt;
			events++;
			if (s->type == CKT_EV_RSS || s->type == CKT_EV_RSS_DETAIL) {
				/* VmHWM (RSS_DETAIL's a) catches peaks between samples */
				uint64_t v = s->type == CKT_EV_RSS ? s->b : s->a;
				rss = v > rss ? v : rss;
				continue;
			}
			int64_t d = change(s, s2, &table);
			if (!d)
				continue;
			/* a stamp past hi (a ring that ends on CUDA_DEVICE) goes to the last bucket */
			uint64_t ts = s->ts > hi ? hi : s->ts;
			size_t k = (size_t)((ts - lo) >> shift);
			if (k != cur) {
				if (cur != SIZE_MAX) {
					b_net[cur] += run;
					b_up[cur] += top;
				}
				cur = k;
				run = top = 0;
				kmin = k < kmin ? k : kmin;
				kmax = k > kmax ? k : kmax;
			}
			run += d;
			top = run > top ? run : top;
		}
		if (cur != SIZE_MAX) {
			b_net[cur] += run;
			b_up[cur] += top;
		}
	}
	if (table) {
		/* the whole flush by time, as the table needs */
		for (size_t k = kmin; k <= kmax && k < CKT_SUM_NB; k++)
			b_net[k] = b_up[k] = 0;
		merge_range(m, 0, 0, 1, 1);
		return;
	}
	ckt_summary.events += events;
	ckt_summary.peak_rss = rss;
	/* passes 2 and 3 */
	int64_t heap_at = ckt_summary.heap;
	for (size_t k = kmin; k <= kmax && k < CKT_SUM_NB;) {
		if (heap_at + b_up[k] <= ckt_summary.peak_heap) {
			heap_at += b_net[k];
			b_net[k] = b_up[k] = 0;
			k++;
			continue;
		}
		/* a run of buckets where the bound reaches past the peak, merged at once (judged
		 * against the peak before the run's merge, which can only be lower: more is merged,
		 * never less) */
		size_t e = k;
		int64_t end_at = heap_at;
		while (e <= kmax && (e == k || end_at + b_up[e] > ckt_summary.peak_heap)) {
			end_at += b_net[e];
			b_net[e] = b_up[e] = 0;
			e++;
		}
		ckt_summary.heap = heap_at;
		merge_range(m, lo + ((uint64_t)k << shift), lo + ((uint64_t)e << shift), e > kmax, 0);
		heap_at = end_at;
		k = e;
	}
	ckt_summary.heap = heap_at;
}

void ckt_summary_add_heap(int64_t delta)
{
	ckt_summary.heap += delta;
	heap_peak();
}
