/* summary.c: the few numbers the exit line prints (events, peak heap, peak RSS), kept by the
 * writer thread as it drains, each flush's events merged by time. The heap total counts
 * usable bytes (what the allocator set aside, as the default mode's running totals do): an
 * ALLOC slot carries the requested size and the usable size's excess over it, a FREE slot
 * the usable size (ckt_slot_size), so no table of live blocks is needed. Keeping one cost a
 * cache miss per long-lived block on its way in and out, a quarter of exact mode's overhead on
 * the benchmark (2.13 s against 1.78 s without). The table below holds only the rare blocks
 * whose excess did not fit (alignments of 64 KiB and more), by requested size. A free of a
 * block allocated before tracing began also subtracts its size; the report's replay ignores
 * such frees, so the two peaks can differ by them and by the usable excess. The tracer's memory
 * never goes through the hooks: tables are mapped directly. */
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

static void heap_alloc(uint64_t a, uint64_t b, uint8_t fn)
{
	uint64_t slack = b >> 48;
	if (CKT_UNLIKELY(fn & CKT_SLOT_WIDE)) { /* b is the whole request */
		tab_add(a, b);
		return;
	}
	if (CKT_UNLIKELY(slack == CKT_SLACK_UNKNOWN)) {
		tab_add(a, b & CKT_SLOT_SIZE_MASK);
		return;
	}
	ckt_summary.heap += (int64_t)((b & CKT_SLOT_SIZE_MASK) + slack);
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

/* ---- k-way merge over the rings of one flush, by a binary min-heap of ring positions ---- */
struct pos {
	const struct ckt_ring *r;
	uint64_t t, h, ts;
	uint64_t mask; /* the ring's window, read once: its line is the producer's, written at
			* every event (read per event, it cost 4% of exact mode) */
};

static struct pos *heap;
static size_t heap_cap;

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

/* the event at p->t counted, p->t past it */
static void take_event(struct pos *p)
{
	const struct ckt_slot *s = slot_at(p, p->t);
	unsigned cnt = ckt_slot_count(s->type);
	summary_event(s, cnt == 2 ? slot_at(p, p->t + 1) : NULL);
	p->t += cnt;
}

void ckt_summary_merge(const struct ckt_cursor *c, size_t n)
{
	if (n > heap_cap) {
		size_t bytes = n * 2 * sizeof(*heap);
		struct pos *h = ckt_ownmaps_map(bytes, 0);
		if (!h) {
			/* each ring in its own order, not merged by time: every event counted, the
			 * peak approximate (the line says so; the events were not counted at all,
			 * and a program that capped its address space read "0 events, peak heap 0 B") */
			oom_say();
			for (size_t i = 0; i < n; i++)
				for (struct pos p = {c[i].ring, c[i].t, c[i].h, 0, ckt_ring_mask(c[i].ring)}; p.t < p.h;)
					take_event(&p);
			return;
		}
		if (heap)
			ckt_ownmaps_unmap(heap, heap_cap * sizeof(*heap));
		heap = h;
		heap_cap = n * 2;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].t >= c[i].h)
			continue;
		struct pos p = {c[i].ring, c[i].t, c[i].h, 0, ckt_ring_mask(c[i].ring)};
		p.ts = slot_at(&p, p.t)->ts;
		heap[k++] = p;
	}
	for (size_t i = k; i-- > 0;)
		sift_down(k, i);
	while (k) {
		struct pos *top = &heap[0];
		take_event(top);
		if (top->t < top->h) {
			top->ts = slot_at(top, top->t)->ts;
		} else {
			heap[0] = heap[--k];
		}
		sift_down(k, 0);
	}
}

void ckt_summary_add_heap(int64_t delta)
{
	ckt_summary.heap += delta;
	heap_peak();
}
