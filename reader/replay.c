/* replay.c: merges the per-thread event groups of the trace into one time-ordered stream and
 * applies it to a live heap map and a live mapping set, tracking totals and peaks. Decoding is
 * decode.c's job; presentation is the report writers'.
 */
#include "replay.h"
#include "event.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CKT_REPLAY_MAX_HELD ((uint64_t)1 << 23) /* events: 320 MiB of queues (ckt_replay_bound) */

/* ---- queued events (struct ckt_ev: event.h) ---- */

/* A heap allocation that the decoder's address model paired with a later release by the same
 * thread (ckt_record's seq and pair) while both sat in the thread's queue, and that release:
 * the block will die young, so it lives in the small `young` table, which stays in cache,
 * and not in the big one, whose lookups are cache misses (87% of the heap events of the
 * benchmark's trace pair). The pairing is only a hint of where to look: the model sees one
 * thread, and another thread may free the block first (and get the address back, and hand it
 * over). So a release looks in the young table first, then in the big one, and an allocation
 * clears its address in both (an address is in one of them at most): the figures are those of
 * one table, except that a young allocation skips the big table (a cache miss: checking
 * cost all of the gain) until the trace shows it can miss frees (ckt_replay_heap_clear). */
#define CKT_EVF_PAIRED 0x8000u

/* The kinds that release, as a mask: the merge asks for every event it replays (seven
 * compares before). */
#define CKT_EV_RELEASES                                                                            \
	(1u << CKT_EV_FREE | 1u << CKT_EV_REALLOC_FREE | 1u << CKT_EV_MUNMAP | 1u << CKT_EV_MREMAP_UNMAP | \
	 1u << CKT_EV_CUDA_FREE | 1u << CKT_EV_CUDA_UNMAP | 1u << CKT_EV_PROTECT_NONE)

static inline int ckt_replay_is_release(uint8_t kind)
{
	return (CKT_EV_RELEASES >> kind) & 1;
}

/* ---- live heap blocks: open addressing, linear probing, backward-shift deletion ----
 * Every heap event looks its address up here, and a table of a few hundred thousand live
 * blocks does not fit in L2: the cost is cache misses. So an entry is 32 bytes (two per line,
 * never straddling one): address 0 marks an empty slot (the block at address 0, if a trace has
 * one, lives in `zero`), and the thread and the sampled flag share one word. */

struct ckt_live {
	uint64_t addr;
	uint64_t size;
	uint64_t stack;
	uint16_t phase; /* at most 4096 (the decoder refuses more) */
	uint16_t gen;   /* its thread's: ckt_thread.gen when it was allocated (mod 2^16) */
	uint32_t owner; /* thread index << 1, | 1 for a sample of the default mode */
};

struct ckt_livemap {
	struct ckt_live *slots;
	size_t cap;     /* power of two */
	size_t n;       /* in slots (not counting zero) */
	bool has_zero;
	struct ckt_live zero;
};

static inline size_t ckt_replay_live_home(const struct ckt_livemap *m, uint64_t addr)
{
	return ckt_util_home(addr, m->cap);
}

/* The slot of a nonzero addr in a table that has slots: its block's, or else the empty slot
 * its probe run ends on, which is where an insert of addr goes. */
static inline struct ckt_live *ckt_replay_live_probe(struct ckt_livemap *m, uint64_t addr)
{
	size_t mask = m->cap - 1;
	for (size_t i = ckt_replay_live_home(m, addr);; i = (i + 1) & mask) {
		uint64_t a = m->slots[i].addr;
		if (a == addr || !a)
			return &m->slots[i];
	}
}

static inline struct ckt_live *ckt_replay_live_find(struct ckt_livemap *m, uint64_t addr)
{
	if (__builtin_expect(addr == 0, 0))
		return m->has_zero ? &m->zero : NULL;
	if (!m->cap)
		return NULL;
	struct ckt_live *b = ckt_replay_live_probe(m, addr);
	return b->addr ? b : NULL;
}

/* Inserts a nonzero address known to be absent; the table has room. */
static inline void ckt_replay_live_put(struct ckt_livemap *m, const struct ckt_live *b)
{
	size_t mask = m->cap - 1, i = ckt_replay_live_home(m, b->addr);
	while (m->slots[i].addr)
		i = (i + 1) & mask;
	m->slots[i] = *b;
	m->n++;
}

/* A table that doubles keeps its pages (ckt_util_big_extend: only the new half is fresh
 * memory; a copy into a new table had the kernel clear both halves, a third of the reader's
 * time on a trace of 6 million live blocks, and held the old and the new at once) and moves
 * its blocks within them. A slot is the hash's top bits, so a block's home h becomes 2h or
 * 2h + 1: taken from the top down, most blocks land in the new half or on slots already
 * emptied. Every block is first marked as not placed (CKT_LIVE_MOVING on its phase, which is
 * at most 4096); each is lifted and put on the first slot from its new home that is empty or
 * holds a block not placed, which it lifts in turn. A placed block never moves again, and
 * the slots from its home to it held placed blocks only, so no probe run has a hole. */
#define CKT_LIVE_MOVING 0x8000u

static __attribute__((noinline)) int ckt_replay_live_grow(struct ckt_livemap *m)
{
	size_t old = m->cap, cap = old ? old * 2 : 1024;
	struct ckt_live *s = ckt_util_big_extend(m->slots, old * sizeof(*s), cap * sizeof(*s));
	if (!s)
		return CKT_ENOMEM;
	m->slots = s;
	m->cap = cap;
	for (size_t i = 0; i < old; i++)
		if (s[i].addr)
			s[i].phase |= CKT_LIVE_MOVING;
	for (size_t i = old; i-- > 0;) {
		if (!s[i].addr || !(s[i].phase & CKT_LIVE_MOVING))
			continue;
		struct ckt_live b = s[i];
		s[i].addr = 0;
		for (;;) {
			b.phase &= (uint16_t)~CKT_LIVE_MOVING;
			size_t j = ckt_replay_live_home(m, b.addr);
			while (s[j].addr && !(s[j].phase & CKT_LIVE_MOVING))
				j = (j + 1) & (cap - 1);
			struct ckt_live lifted = s[j];
			s[j] = b;
			if (!lifted.addr)
				break;
			b = lifted;
		}
	}
	return 0;
}

/* Adds a block whose address is absent. Returns 0 or CKT_ENOMEM. */
static inline int ckt_replay_live_add(struct ckt_livemap *m, const struct ckt_live *b)
{
	if (__builtin_expect(b->addr == 0, 0)) {
		m->zero = *b;
		m->has_zero = true;
		return 0;
	}
	/* at most half full: the backward shift of a delete and the probes of a lookup stay within
	 * a line or two (at 70% they were a third of the replay's time on the benchmark; half full
	 * reads it 13% faster for 20% more memory) */
	if (__builtin_expect((m->n + 1) * 2 >= m->cap, 0) && ckt_replay_live_grow(m) < 0)
		return CKT_ENOMEM;
	ckt_replay_live_put(m, b);
	return 0;
}

static inline void ckt_replay_live_del(struct ckt_livemap *m, struct ckt_live *b)
{
	if (b == &m->zero) {
		m->has_zero = false;
		return;
	}
	size_t mask = m->cap - 1, i = (size_t)(b - m->slots), j = i;

	/* Shift later members of the probe run back so lookups never meet a hole too early. */
	for (;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].addr)
			break;
		size_t k = ckt_replay_live_home(m, m->slots[j].addr);
		int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].addr = 0;
	m->n--;
}

/* ---- live CUDA allocations (rare): the same scheme with room for the CUDA attributes ---- */

struct ckt_block {
	uint64_t addr;
	uint64_t size;
	uint64_t stack;
	uint32_t phase;
	uint64_t tid; /* the thread's key (struct ckt_attr) */
	uint8_t fn;
	uint8_t used;
	uint8_t cu_kind;  /* CUDA blocks only: CKT_CUDA_* */
	uint8_t released; /* VMM handles: cuMemRelease seen while ranges were still mapped */
	uint32_t cu_dev;  /* CUDA blocks only: device ordinal or CKT_CUDA_NO_DEVICE */
	uint32_t maps;    /* VMM handles: ranges mapped to it now */
};

struct ckt_heapmap {
	struct ckt_block *slots;
	size_t cap; /* power of two */
	size_t n;
};

static size_t ckt_replay_home(const struct ckt_heapmap *m, uint64_t addr)
{
	return ckt_util_home(addr, m->cap);
}

static struct ckt_block *ckt_replay_heap_find(const struct ckt_heapmap *m, uint64_t addr)
{
	if (!m->n)
		return NULL;
	for (size_t i = ckt_replay_home(m, addr);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i].used)
			return NULL;
		if (m->slots[i].addr == addr)
			return &m->slots[i];
	}
}

/* Inserts an address known to be absent. */
static void ckt_replay_heap_put(struct ckt_heapmap *m, const struct ckt_block *b)
{
	size_t i = ckt_replay_home(m, b->addr);
	while (m->slots[i].used)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = *b;
	m->slots[i].used = 1;
	m->n++;
}

static int ckt_replay_heap_reserve(struct ckt_heapmap *m)
{
	if (m->cap && (m->n + 1) * 10 < m->cap * 7)
		return 0;
	struct ckt_heapmap g = { NULL, m->cap ? m->cap * 2 : 1024, 0 };
	g.slots = calloc(g.cap, sizeof(*g.slots));
	if (!g.slots)
		return CKT_ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			ckt_replay_heap_put(&g, &m->slots[i]);
	free(m->slots);
	*m = g;
	return 0;
}

static void ckt_replay_heap_del(struct ckt_heapmap *m, struct ckt_block *b)
{
	size_t mask = m->cap - 1, i = (size_t)(b - m->slots), j = i;

	/* Shift later members of the probe run back so lookups never meet a hole too early. */
	for (;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].used)
			break;
		size_t k = ckt_replay_home(m, m->slots[j].addr);
		int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].used = 0;
	m->n--;
}

/* ---- live mappings: sorted, non-overlapping [start, end) ranges ---- */

struct ckt_range {
	uint64_t start, end;
	uint64_t stack;
	uint32_t phase;
	uint32_t prot;
	uint32_t flags; /* CKT_MAP_ANON, CKT_MAP_SHARED */
	uint64_t tid; /* the thread's key (struct ckt_attr) */
	/* the ranges left of the mapping this one is part of (unmapping a hole splits one in
	 * two), shared by them: the mapping stops counting as a live block when the last goes */
	uint32_t *pieces;
};

/* Live ranges sorted by address, in chunks of at most CKT_RANGE_CHUNK: each chunk's ranges in
 * one array, the chunks in address order in a table with the count of ranges before each. A
 * range is named by its index in the whole set, as in one sorted array; finding index i is a
 * binary search of the table (the chunk of the last lookup first: walks go range by range).
 * An insert or a removal moves ranges within one chunk (a full chunk splits in two) and
 * updates the counts of the chunks after it: O(CKT_RANGE_CHUNK + chunks) where one sorted
 * array moved the shorter side, half the set for a change in the middle (300,000 mappings
 * made between 600,000 others: 79 s, now 0.48 s; 200,000 one-page mappings unmapped in random
 * order: 3.1 s, now 0.19 s). Two neighbours that fit in half a chunk together are merged as a
 * range goes, so the chunks stay at least a quarter full on average. The first chunk is made with the first
 * range: a trace with no mapping allocates nothing. */
#ifndef CKT_RANGE_CHUNK
#define CKT_RANGE_CHUNK 256 /* ranges: 12 KiB */
#endif
struct ckt_rchunk {
	size_t n;
	size_t reserved; /* of its ranges, those reserved (PROT_NONE): an mprotect that would change
			  * none of them passes the chunk by (ckt_replay_protect) */
	struct ckt_range r[CKT_RANGE_CHUNK];
};

struct ckt_rangeset {
	struct ckt_rchunk **c; /* nc chunks in address order, none empty */
	size_t *before;        /* ranges in the chunks before each */
	size_t nc, cap_c;
	size_t n;    /* ranges in all */
	size_t last; /* the chunk of the last lookup (a hint) */
};

/* whether range g is reserved address space (PROT_NONE): see ckt_replay_range_mapped */
static inline size_t ckt_replay_range_reserved(const struct ckt_range *g)
{
	return (g->prot & 7) == 0;
}

/* One range of a mapping is gone: the mapping's last one, or a piece of it. */
static int ckt_replay_piece_gone(struct ckt_range *g)
{
	if (--*g->pieces)
		return 0;
	free(g->pieces);
	g->pieces = NULL;
	return 1;
}

/* The chunk that holds index i (i < n). */
static size_t ckt_replay_range_chunk(const struct ckt_rangeset *s, size_t i)
{
	size_t h = s->last;
	if (h < s->nc && s->before[h] <= i && i < s->before[h] + s->c[h]->n)
		return h;
	size_t lo = 0, hi = s->nc; /* the last chunk whose before is <= i */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->before[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Range number i (i < n). */
static struct ckt_range *ckt_replay_range_at(struct ckt_rangeset *s, size_t i)
{
	size_t h = ckt_replay_range_chunk(s, i);
	s->last = h;
	return &s->c[h]->r[i - s->before[h]];
}

/* First range whose end lies above addr (ends are sorted too, ranges being disjoint). */
static size_t ckt_replay_range_lower(const struct ckt_rangeset *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nc; /* the first chunk whose last range ends above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ckt_rchunk *c = s->c[mid];
		if (c->r[c->n - 1].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nc)
		return s->n;
	const struct ckt_rchunk *c = s->c[lo];
	size_t a = 0, b = c->n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (c->r[mid].end <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	return s->before[lo] + a;
}

/* Room for one more chunk in the table. */
static int ckt_replay_range_table(struct ckt_rangeset *s)
{
	if (s->nc < s->cap_c)
		return 0;
	size_t cap = s->cap_c ? s->cap_c * 2 : 8;
	struct ckt_rchunk **c = realloc(s->c, cap * sizeof(*c));
	if (!c)
		return CKT_ENOMEM;
	s->c = c;
	size_t *before = realloc(s->before, cap * sizeof(*before));
	if (!before)
		return CKT_ENOMEM;
	s->before = before;
	s->cap_c = cap;
	return 0;
}

/* A new chunk at table position h, holding nothing yet. */
static struct ckt_rchunk *ckt_replay_range_new_chunk(struct ckt_rangeset *s, size_t h, size_t before)
{
	struct ckt_rchunk *c;
	if (ckt_replay_range_table(s) < 0 || !(c = malloc(sizeof(*c))))
		return NULL;
	c->n = 0;
	c->reserved = 0;
	memmove(&s->c[h + 1], &s->c[h], (s->nc - h) * sizeof(*s->c));
	memmove(&s->before[h + 1], &s->before[h], (s->nc - h) * sizeof(*s->before));
	s->c[h] = c;
	s->before[h] = before;
	s->nc++;
	return c;
}

/* Chunk h is gone from the table (it was emptied or merged). */
static void ckt_replay_range_drop_chunk(struct ckt_rangeset *s, size_t h)
{
	free(s->c[h]);
	memmove(&s->c[h], &s->c[h + 1], (s->nc - h - 1) * sizeof(*s->c));
	memmove(&s->before[h], &s->before[h + 1], (s->nc - h - 1) * sizeof(*s->before));
	s->nc--; /* (the lookup hint may now name no chunk: ckt_replay_range_chunk checks it) */
}

static int ckt_replay_range_insert_at(struct ckt_rangeset *s, size_t i, const struct ckt_range *v)
{
	size_t h;
	if (!s->nc) {
		if (!ckt_replay_range_new_chunk(s, 0, 0))
			return CKT_ENOMEM;
		h = 0;
	} else {
		/* the chunk holding index i, or for i == n the last one */
		h = i < s->n ? ckt_replay_range_chunk(s, i) : s->nc - 1;
	}
	struct ckt_rchunk *c = s->c[h];
	if (c->n == CKT_RANGE_CHUNK) { /* full: its upper half goes to a new chunk after it */
		size_t half = CKT_RANGE_CHUNK / 2;
		struct ckt_rchunk *d = ckt_replay_range_new_chunk(s, h + 1, s->before[h] + half);
		if (!d)
			return CKT_ENOMEM;
		memcpy(d->r, &c->r[half], (CKT_RANGE_CHUNK - half) * sizeof(*d->r));
		d->n = CKT_RANGE_CHUNK - half;
		c->n = half;
		for (size_t j = 0; j < d->n; j++)
			d->reserved += ckt_replay_range_reserved(&d->r[j]);
		c->reserved -= d->reserved;
		if (i > s->before[h] + half) { /* i == before + half goes to the end of c */
			h++;
			c = d;
		}
	}
	size_t k = i - s->before[h];
	memmove(&c->r[k + 1], &c->r[k], (c->n - k) * sizeof(*c->r));
	c->r[k] = *v;
	c->n++;
	c->reserved += ckt_replay_range_reserved(v);
	s->n++;
	for (size_t j = h + 1; j < s->nc; j++)
		s->before[j]++;
	s->last = h;
	return 0;
}

/* Removes the k ranges from index i on. */
static void ckt_replay_range_remove(struct ckt_rangeset *s, size_t i, size_t k)
{
	while (k) {
		size_t h = ckt_replay_range_chunk(s, i);
		struct ckt_rchunk *c = s->c[h];
		size_t at = i - s->before[h], m = c->n - at < k ? c->n - at : k;
		for (size_t j = at; j < at + m; j++)
			c->reserved -= ckt_replay_range_reserved(&c->r[j]);
		memmove(&c->r[at], &c->r[at + m], (c->n - at - m) * sizeof(*c->r));
		c->n -= m;
		s->n -= m;
		k -= m;
		for (size_t j = h + 1; j < s->nc; j++)
			s->before[j] -= m;
		if (!c->n) {
			ckt_replay_range_drop_chunk(s, h);
			continue;
		}
		/* a chunk and a neighbour that fit in half of one become one */
		size_t a = h + 1 < s->nc && c->n + s->c[h + 1]->n <= CKT_RANGE_CHUNK / 2 ? h
			   : h > 0 && c->n + s->c[h - 1]->n <= CKT_RANGE_CHUNK / 2 ? h - 1
										       : SIZE_MAX;
		if (a != SIZE_MAX) {
			struct ckt_rchunk *x = s->c[a], *y = s->c[a + 1];
			memcpy(&x->r[x->n], y->r, y->n * sizeof(*y->r));
			x->n += y->n;
			x->reserved += y->reserved;
			ckt_replay_range_drop_chunk(s, a + 1);
		}
	}
}

/* Every range, and the set's memory, goes. */
static void ckt_replay_range_clear(struct ckt_rangeset *s)
{
	for (size_t h = 0; h < s->nc; h++) {
		for (size_t k = 0; k < s->c[h]->n; k++)
			(void)ckt_replay_piece_gone(&s->c[h]->r[k]);
		free(s->c[h]);
	}
	free(s->c);
	free(s->before);
	*s = (struct ckt_rangeset){ 0 };
}

/* ---- threads and the merge heap ---- */

/* Merge order: time, then releases before allocations at equal time (the format promises a
 * FREE is stamped before another thread's ALLOC of the same address, and equal stamps happen),
 * then first-seen thread for a deterministic result. The key of a thread's head event is kept
 * in the heap entry itself, so comparisons never chase the queues: tie = 0 for a release, then
 * bit 32 for anything else, | thread index. */
struct ckt_hent {
	uint64_t ts;
	uint64_t tie;
};

static inline uint64_t ckt_replay_tie(const struct ckt_ev *ev, size_t t)
{
	return (uint64_t)!ckt_replay_is_release(ev->kind) << 32 | t;
}

static inline bool ckt_replay_before(const struct ckt_hent *a, const struct ckt_hent *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->tie < b->tie;
}

/* The same order without a branch, for the scans of a few threads (ckt_replay_second): which
 * thread comes next is as good as random, and a branch on it mispredicts about half the time. */
static inline bool ckt_replay_before_bl(const struct ckt_hent *a, const struct ckt_hent *b)
{
	return (a->ts < b->ts) | ((a->ts == b->ts) & (a->tie < b->tie));
}

/* A piece of a range mremap moves: its attributes, and which old mapping it was part of. */
struct ckt_mr {
	struct ckt_range g;
	uint32_t group;
};

#define CKT_REPLAY_EXITS_KEPT 4 /* per thread id: the ends kept in place (more: exit_more) */
#define CKT_REPLAY_POST 4
#define CKT_REPLAY_GONE 4 /* a tracer since 0.2.58 sends its totals before each sample's free */
struct ckt_late_gone {
	uint64_t stack, tid;
	int64_t est;
	double w;
	uint32_t phase;
};
struct ckt_thread {
	uint64_t tid;
	struct ckt_ev *q; /* ring buffer of events read but not yet replayed */
	/* head counts every event ever queued on this thread and replayed (it never goes back):
	 * event number i sits at q[i & (cap - 1)], so a number stays valid across growth */
	size_t head, n, cap; /* cap: 0 or a power of two */
	/* the pieces of the range an MREMAP released, for its map half (same thread, next in its
	 * FIFO): offsets from the old start (ckt_replay_mr_collect) */
	struct ckt_mr *mr;
	uint32_t mr_n, mr_cap, mr_groups; /* groups: numbered 1 to mr_groups */
	uint64_t mr_len; /* the length they stand for: a new range longer grows the last piece */
	/* the value an RSS_DETAIL (shmem) or CUDA_ALLOC (device ordinal) event has no room for
	 * in its ckt_ev, one per such event queued, in queue order: a ring as q, xhead counting */
	uint64_t *xq;
	size_t xhead, xn, xcap;
	bool sent_agg; /* has sent AGG records (default mode) */
	bool agg_live; /* may have running totals pending: sent AGG, no THREAD_EXIT since */
	bool kept;     /* q is counted in the replay's kept_bytes */
	bool idle;     /* q (small) is held while empty: counted in the replay's idle_bytes */
	bool alive;    /* has recorded, no THREAD_EXIT since (see threads_alive) */
	bool pushed_phase; /* has pushed a phase since its THREAD_EXIT, if any (CKT_REPLAY_PHASE_GONE) */
	uint64_t last_ts; /* the latest stamp queued (backward_events) */
	uint64_t agg_ts;  /* its latest AGG replayed: its running totals changed after it */
	uint64_t last_alloc; /* its latest heap allocation's address + 1 (0: none, or freed) */
	uint64_t last_alloc_rises; /* the replay's peak_rises as that allocation was applied */
	/* threads of this id that ended before the one replayed now (THREAD_EXIT replayed), and
	 * before the one read now (THREAD_EXIT read, feed order), with the latest ends read (a
	 * tracer's last flush writes a chain of reuses' names after all their ends) */
	uint32_t gen, feed_gen;
	uint64_t exit_ts[CKT_REPLAY_EXITS_KEPT]; /* the stamps of the first ends read */
	uint64_t *exit_more; /* of those after them, exit_more_cap room (a chain can be long) */
	size_t exit_more_cap;
	/* the default mode's samples this thread took after the peak heap's moment, since its
	 * latest AGG, while the heap held still at that peak (ckt_replay_post_sample): their
	 * bytes are in its next AGG, which may count at that peak (late_epoch: the peak's epoch
	 * then; at most CKT_REPLAY_POST of them) */
	uint64_t late_epoch;
	uint8_t n_late;
	bool late_unsure; /* of late_epoch: not all its samples since the peak are in late[] */
	struct ckt_late_sample {
		uint64_t addr, stack, size;
		uint32_t phase;
	} late[CKT_REPLAY_POST];
	/* the samples this thread freed since its latest AGG, after the peak heap's moment while
	 * the heap held still there, that were live at that peak (ckt_replay_post_free): their
	 * bytes left with its next AGG, which may count at that peak (gone_epoch: the peak's
	 * epoch then; CKT_REPLAY_GONE at most, gone[] malloc'd at first use) */
	uint64_t gone_epoch;
	uint32_t n_gone;
	struct ckt_late_gone *gone;
};

/* The stamp of end number i of thread id th read so far (i < feed_gen). */
static inline uint64_t ckt_replay_exit_ts(const struct ckt_thread *th, uint32_t i)
{
	return i < CKT_REPLAY_EXITS_KEPT ? th->exit_ts[i] : th->exit_more[i - CKT_REPLAY_EXITS_KEPT];
}

/* The key observers get for thread th (struct ckt_attr's tid). */
static inline uint64_t ckt_replay_key(const struct ckt_thread *th)
{
	return th->tid | (uint64_t)(th->gen & 0xffff) << 32; /* as ckt_live keeps it */
}

#define CKT_REPLAY_RSS_RECENT 256 /* 2.5 s of samples at the default 10 ms, exact */
#define CKT_REPLAY_RSS_HIST 1024
struct ckt_replay {
	uint64_t page_size;
	uint64_t horizon; /* the previous SYNC's horizon: events before it may be replayed */
	uint64_t replayed_to; /* events stamped before this were replayed: a later one is late */
	uint64_t max_held;    /* ckt_replay_set_max_held */
	uint64_t agg_tick;    /* ckt_replay_set_agg_tick */
	/* the times of RSS samples: the tracer's coarse clock ticks right before each, so the
	 * first one after a late total's last change bounds when that change was
	 * (ckt_replay_agg_late). The latest CKT_REPLAY_RSS_RECENT, oldest first from rss_at (a
	 * ring), and every rss_stride-th of all since the start (rss_hist, oldest first, halved
	 * when full: bounded, and a long idle still finds a sample after its change) */
	uint64_t rss_ts[CKT_REPLAY_RSS_RECENT];
	size_t rss_n, rss_at;
	uint64_t rss_hist[CKT_REPLAY_RSS_HIST];
	size_t rss_hist_n;
	uint64_t rss_seen, rss_stride;
	/* the late totals that belong to the current peak heap (and to the peak RSS's heap), added
	 * up since it was reached: the peak counts their sum where it is positive (see
	 * ckt_replay_agg_late) */
	int64_t late_net, late_net_rss;
	uint64_t late_kept_rss; /* as the stats' agg_late_kept, at the peak RSS sample */
	uint64_t flat_until; /* the first change of the heap after its peak; UINT64_MAX: none yet */
	size_t free_ti; /* the thread whose release is applied now; SIZE_MAX: none (ckt_replay_post_free) */
	bool late_frees; /* the tracer sends a thread's totals before a sample's free (0.2.58 on) */
	uint64_t phase_after_peak; /* the first phase event after it; UINT64_MAX: none yet */
	uint64_t held;        /* events queued in all threads now (ckt_replay_bound) */
	/* how many times the peak heap rose; the temporaries live at the current peak (a
	 * later rise makes them temporaries: ckt_replay_heap_event) */
	uint64_t peak_rises, peak_temps;

	struct ckt_thread *threads;
	size_t n_threads, cap_threads;
	uint32_t *tid_slots; /* open addressing tid -> thread index + 1; 0 = empty */
	size_t tid_cap;

	/* threads with queued events by their head event's merge key: the first is always the
	 * smallest; up to CKT_REPLAY_FEW of them the others are in no order (ckt_replay_second
	 * scans them), beyond that the array is a min-heap */
	struct ckt_hent *heap;
	size_t heap_n;
	size_t last_ti; /* thread of the previous push + 1 (records come in THREAD groups) */
	struct ckt_ev *spare; /* a big queue buffer given back (ckt_replay_retire) */
	size_t spare_cap;
	size_t kept_bytes; /* big queues kept across windows while empty (ckt_replay_retire) */
	size_t idle_bytes; /* small queues held by threads with nothing queued */

	/* live heap blocks: the young ones (paired, see CKT_EVF_PAIRED) and all others; an
	 * address is in one of them at most */
	struct ckt_livemap blocks, young;
	struct ckt_rangeset maps;
	/* where the last CKT_AM_RECENT allocations (by seq) were queued, for pairing */
	struct {
		uint64_t seq;
		size_t pos; /* event number in its thread's queue */
		size_t ti;
	} pairs[CKT_AM_RECENT];

	uint64_t lost_sum, lost_end;
	bool have_detail;
	uint64_t detail[4]; /* latest RSS_DETAIL: hwm, anon, file, shmem */
	uint64_t detail_ts; /* its sample's time */

	ckt_replay_sample_fn *sink;
	void *sink_ctx;

	struct ckt_replay_stats st;

	/* CUDA allocations by address, and VMM allocations by handle (a namespace of its own) */
	/* CUDA allocations by address, VMM allocations by handle, and the ranges mapped to VMM
	 * handles by start address (addr, size, stack = the handle) */
	struct ckt_heapmap cuda_blocks, cuda_handles, cuda_maps;
	/* cuda_maps changes so far, and the last refused cuMemUnmap with the count it was refused
	 * at (UINT64_MAX: none yet) */
	uint64_t cuda_maps_gen, cuda_fail_gen, cuda_fail_addr, cuda_fail_end;
	size_t cap_cuda_devices;
	struct ckt_cuda_device cuda_overflow; /* the devices past CKT_REPLAY_MAX_DEVICES */

	int64_t heap_signed, blocks_signed; /* see ckt_replay_heap_move */
	bool overflow; /* a sum passed CKT_REPLAY_MAX_LIVE: the trace is corrupt */
	int64_t sampled_live;   /* see ckt_replay_sampled_move */
	uint64_t allocated_sum; /* see ckt_replay_allocated */
	uint64_t agg_live; /* threads that may have running totals pending now */
	uint64_t threads_alive; /* threads with `alive` set (st.threads_at_once: its maximum) */

	struct ckt_observer obs[8];
	size_t n_obs;
	ckt_replay_prefetch_fn *pf_fn; /* ckt_replay_set_prefetch */
	void *pf_ctx;
	const bool *pf_on;
	/* heap changes not handed to the observers yet: one run (ckt_replay_obs_bytes) */
	bool pend_on;
	bool runs_by_thread, runs_off;
	/* the trace's tracer writes a thread's end before the next thread of its id (0.2.33):
	 * threads of one id are told apart (ckt_replay_set_thread_gens) */
	bool thread_gens;
	bool stack_small; /* ckt_replay_set_stack_small */
	struct ckt_attr pend_a;
	struct ckt_run pend;
	uint64_t epochs[CKT_EPOCHS_LEN]; /* see ckt_replay_epochs */
};

int ckt_replay_observe(struct ckt_replay *r, const struct ckt_observer *o)
{
	if (r->n_obs == sizeof(r->obs) / sizeof(r->obs[0]))
		return CKT_ENOMEM;
	r->obs[r->n_obs++] = *o;
	return 0;
}

void ckt_replay_set_prefetch(struct ckt_replay *r, ckt_replay_prefetch_fn *fn, void *ctx, const bool *on)
{
	r->pf_fn = fn;
	r->pf_ctx = ctx;
	r->pf_on = on;
}

void ckt_replay_epochs_from(struct ckt_replay *r, uint64_t base)
{
	for (int m = 0; m <= CKT_AT_COUNT + 1; m++)
		r->epochs[m] = base;
}

const uint64_t *ckt_replay_epochs(const struct ckt_replay *r)
{
	return r->epochs;
}

void ckt_replay_set_sample(struct ckt_replay *r, uint64_t rate_bytes)
{
	r->st.sample_r = rate_bytes;
}

void ckt_replay_set_late_frees(struct ckt_replay *r, bool on)
{
	r->late_frees = on;
}

void ckt_replay_set_agg_tick(struct ckt_replay *r, uint64_t ns)
{
	r->agg_tick = ns;
}

double ckt_replay_sample_weight(uint64_t rate, uint64_t size)
{
	if (!rate || !size)
		return 1.0;
	return 1.0 / -expm1(-(double)size / (double)rate);
}

void ckt_replay_runs_by_thread(struct ckt_replay *r, bool on)
{
	r->runs_by_thread = on;
}

void ckt_replay_set_thread_gens(struct ckt_replay *r, bool on)
{
	r->thread_gens = on;
}

void ckt_replay_set_stack_small(struct ckt_replay *r, bool on)
{
	r->stack_small = on;
}

void ckt_replay_runs_off(struct ckt_replay *r)
{
	r->runs_off = true;
}

/* ---- observers: runs of changes (struct ckt_run) ---- */

static inline void ckt_replay_run_start(struct ckt_run *run, int64_t d, int b, unsigned temp, uint64_t ts)
{
	*run = (struct ckt_run){ .delta = d, .rise = d, .blocks = b, .blocks_rise = b, .temps = temp & 1,
				 .peak_temps = temp >> 1, .ts = ts };
	if (d > 0)
		run->added = (uint64_t)d;
	if (b > 0) { /* an allocation, of any size: malloc(0) is one too */
		run->allocs = 1;
		run->alloc_bytes = d > 0 ? (uint64_t)d : 0;
	}
	run->n = 1;
}

static inline void ckt_replay_run_add(struct ckt_run *run, int64_t d, int b, unsigned temp, uint64_t ts)
{
	run->delta += d;
	run->temps += temp & 1;
	run->peak_temps += temp >> 1;
	if (run->delta > run->rise)
		run->rise = run->delta;
	run->blocks += b;
	if (run->blocks > run->blocks_rise)
		run->blocks_rise = run->blocks;
	if (d > 0)
		run->added += (uint64_t)d;
	if (b > 0) {
		run->allocs++;
		run->alloc_bytes += d > 0 ? (uint64_t)d : 0;
	}
	run->n++;
	run->ts = ts;
}

static void ckt_replay_obs_send(struct ckt_replay *r, const struct ckt_attr *a, const struct ckt_run *run)
{
	for (size_t i = 0; i < r->n_obs; i++)
		if (r->obs[i].bytes)
			r->obs[i].bytes(r->obs[i].ctx, a, run);
}

/* Hands the pending run over: before anything else an observer sees (a change of another
 * attribution, a peak, a sample, a phase, a record) and at the end. */
static inline void ckt_replay_obs_flush(struct ckt_replay *r)
{
	if (r->pend_on) {
		r->pend_on = false;
		ckt_replay_obs_send(r, &r->pend_a, &r->pend);
	}
}

/* One change, handed over alone (after the pending run). */
static void ckt_replay_obs_one(struct ckt_replay *r, uint64_t stack, uint32_t phase, uint64_t tid,
			       enum ckt_space space, int64_t delta, int blocks, unsigned temp, uint64_t ts,
			       double weight)
{
	struct ckt_attr a = { stack, phase, tid, space, weight };
	struct ckt_run run;
	ckt_replay_obs_flush(r);
	ckt_replay_run_start(&run, delta, blocks, temp, ts);
	ckt_replay_obs_send(r, &a, &run);
}

/* A change that does not join the pending run (below): it starts one, or goes alone. */
static __attribute__((noinline)) void ckt_replay_obs_new_run(struct ckt_replay *r, uint64_t stack, uint32_t phase,
								 uint64_t tid, enum ckt_space space, int64_t delta,
								 int blocks, unsigned temp, uint64_t ts)
{
	if (space != CKT_SPACE_HEAP || r->runs_off) {
		ckt_replay_obs_one(r, stack, phase, tid, space, delta, blocks, temp, ts, 1.0);
		return;
	}
	ckt_replay_obs_flush(r);
	r->pend_a = (struct ckt_attr){ stack, phase, tid, CKT_SPACE_HEAP, 1.0 };
	ckt_replay_run_start(&r->pend, delta, blocks, temp, ts);
	r->pend_on = true;
}

/* One change of an exact block or mapping: a heap change joins the pending run when it has
 * the same attribution. Cost of a joining change: a compare of the key and the sums above.
 * temp: 1 for a heap block freed as a temporary, 2 for one live at the current peak heap
 * (struct ckt_run's temps and peak_temps). */
static inline void ckt_replay_obs_change(struct ckt_replay *r, uint64_t stack, uint32_t phase, uint64_t tid,
					 enum ckt_space space, int64_t delta, int blocks, unsigned temp, uint64_t ts)
{
	/* pend_on is false while runs are off, and pend_a.space is the heap's */
	if (r->pend_on && r->pend_a.stack == stack && r->pend_a.phase == phase && space == CKT_SPACE_HEAP &&
	    (!r->runs_by_thread || r->pend_a.tid == tid)) {
		ckt_replay_run_add(&r->pend, delta, blocks, temp, ts);
		return;
	}
	ckt_replay_obs_new_run(r, stack, phase, tid, space, delta, blocks, temp, ts);
}

static inline void ckt_replay_obs_bytes(struct ckt_replay *r, uint64_t stack, uint32_t phase, uint64_t tid,
					enum ckt_space space, int64_t delta, int blocks, uint64_t ts)
{
	ckt_replay_obs_change(r, stack, phase, tid, space, delta, blocks, 0, ts);
}

/* A phase event (or a thread's end: CKT_REPLAY_PHASE_GONE) to the observers, after the runs
 * of changes before it */
static void ckt_replay_obs_phase(struct ckt_replay *r, uint64_t ts, uint64_t key, unsigned op, uint32_t id)
{
	ckt_replay_obs_flush(r);
	for (size_t i = 0; i < r->n_obs; i++)
		if (r->obs[i].phase)
			r->obs[i].phase(r->obs[i].ctx, ts, key, op, id);
}

static void ckt_replay_obs_peak(struct ckt_replay *r, enum ckt_moment m, uint64_t ts)
{
	ckt_replay_obs_flush(r); /* the run that made the peak, its last change included */
	r->epochs[m]++;
	r->epochs[CKT_AT_COUNT]++;
	for (size_t i = 0; i < r->n_obs; i++)
		if (r->obs[i].peak)
			r->obs[i].peak(r->obs[i].ctx, m, ts);
}

struct ckt_replay *ckt_replay_new(uint64_t page_size)
{
	struct ckt_replay *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->page_size = page_size && !(page_size & (page_size - 1)) ? page_size : 4096;
	r->max_held = CKT_REPLAY_MAX_HELD;
	r->agg_tick = 10000000; /* the tracer's default CUZKTRACE_RSS_MS */
	r->rss_stride = 1;
	r->cuda_fail_gen = UINT64_MAX; /* no refused call yet */
	r->flat_until = r->phase_after_peak = UINT64_MAX;
	r->free_ti = SIZE_MAX;
	for (int m = 0; m < CKT_AT_COUNT; m++)
		r->epochs[CKT_EPOCHS_ALIAS + m] = (uint64_t)m;
	return r;
}

void ckt_replay_set_max_held(struct ckt_replay *r, uint64_t events)
{
	r->max_held = events ? events : 1;
}

void ckt_replay_drop_state(struct ckt_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_threads; i++) {
		ckt_util_big_free(r->threads[i].q, r->threads[i].cap * sizeof(struct ckt_ev));
		free(r->threads[i].mr);
		free(r->threads[i].xq);
		free(r->threads[i].exit_more);
		free(r->threads[i].gone);
	}
	free(r->threads);
	free(r->tid_slots);
	free(r->heap);
	r->threads = NULL;
	r->tid_slots = NULL;
	r->heap = NULL;
	r->n_threads = r->cap_threads = r->tid_cap = 0;
	ckt_util_big_free(r->spare, r->spare_cap * sizeof(struct ckt_ev));
	r->spare = NULL;
	r->spare_cap = 0;
	ckt_util_big_free(r->blocks.slots, r->blocks.cap * sizeof(*r->blocks.slots));
	ckt_util_big_free(r->young.slots, r->young.cap * sizeof(*r->young.slots));
	r->blocks = r->young = (struct ckt_livemap){ 0 };
	ckt_replay_range_clear(&r->maps);
	free(r->cuda_blocks.slots);
	free(r->cuda_handles.slots);
	free(r->cuda_maps.slots);
	r->cuda_blocks = r->cuda_handles = r->cuda_maps = (struct ckt_heapmap){ 0 };
}

void ckt_replay_free(struct ckt_replay *r)
{
	if (!r)
		return;
	ckt_replay_drop_state(r);
	free(r->st.cuda_devices);
	free(r);
}

void ckt_replay_set_sample_sink(struct ckt_replay *r, ckt_replay_sample_fn *fn, void *ctx)
{
	r->sink = fn;
	r->sink_ctx = ctx;
}

const struct ckt_replay_stats *ckt_replay_stats(const struct ckt_replay *r)
{
	return &r->st;
}

static int ckt_replay_tid_rehash(struct ckt_replay *r)
{
	size_t cap = r->tid_cap ? r->tid_cap * 2 : 64;
	uint32_t *s = calloc(cap, sizeof(*s));
	if (!s)
		return CKT_ENOMEM;
	for (size_t t = 0; t < r->n_threads; t++) {
		size_t i = ckt_util_home(r->threads[t].tid, cap);
		while (s[i])
			i = (i + 1) & (cap - 1);
		s[i] = (uint32_t)t + 1;
	}
	free(r->tid_slots);
	r->tid_slots = s;
	r->tid_cap = cap;
	return 0;
}

/* Returns the index of tid's thread, creating it on first sight; -1 when out of memory. */
/* The index of thread id tid, -1 when it has none yet. */
static long ckt_replay_thread_find(const struct ckt_replay *r, uint64_t tid)
{
	if (r->tid_cap) {
		for (size_t i = ckt_util_home(tid, r->tid_cap); r->tid_slots[i];
		     i = (i + 1) & (r->tid_cap - 1))
			if (r->threads[r->tid_slots[i] - 1].tid == tid)
				return (long)r->tid_slots[i] - 1;
	}
	return -1;
}

static long ckt_replay_thread(struct ckt_replay *r, uint64_t tid)
{
	long found = ckt_replay_thread_find(r, tid);
	if (found >= 0)
		return found;
	if (r->n_threads >= ((size_t)1 << 31) - 1) /* ckt_live.owner holds the index << 1 */
		return -1;
	if (r->n_threads == r->cap_threads) {
		size_t cap = r->cap_threads ? r->cap_threads * 2 : 16;
		struct ckt_thread *t = realloc(r->threads, cap * sizeof(*t));
		struct ckt_hent *h = realloc(r->heap, cap * sizeof(*h));
		if (t)
			r->threads = t;
		if (h)
			r->heap = h;
		if (!t || !h)
			return -1;
		r->cap_threads = cap;
	}
	memset(&r->threads[r->n_threads], 0, sizeof(r->threads[0]));
	r->threads[r->n_threads].tid = tid;
	r->n_threads++;
	if (r->n_threads * 2 > r->tid_cap) {
		/* the rehash places every thread, the new one included */
		if (ckt_replay_tid_rehash(r) < 0) {
			r->n_threads--;
			return -1;
		}
	} else {
		size_t i = ckt_util_home(tid, r->tid_cap);
		while (r->tid_slots[i])
			i = (i + 1) & (r->tid_cap - 1);
		r->tid_slots[i] = (uint32_t)r->n_threads;
	}
	return (long)r->n_threads - 1;
}

uint64_t ckt_replay_thread_key(const struct ckt_replay *r, uint64_t tid, uint64_t ts)
{
	long ti = ckt_replay_thread_find(r, tid);
	if (ti < 0)
		return tid;
	const struct ckt_thread *th = &r->threads[ti];
	/* stamped before ends read already: a thread's before them (a tracer's last flush writes
	 * a chain of reuses' names after all their ends: each name goes back over the ends of
	 * the threads after its own) */
	uint32_t gen = th->feed_gen;
	while (gen && ts <= ckt_replay_exit_ts(th, gen - 1))
		gen--;
	return tid | (uint64_t)(gen & 0xffff) << 32;
}

static void ckt_replay_sift_up(struct ckt_replay *r, size_t i)
{
	struct ckt_hent e = r->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ckt_replay_before(&e, &r->heap[p]))
			break;
		r->heap[i] = r->heap[p];
		i = p;
	}
	r->heap[i] = e;
}

static void ckt_replay_sift_down(struct ckt_replay *r, size_t i)
{
	struct ckt_hent e = r->heap[i];
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= r->heap_n)
			break;
		if (l + 1 < r->heap_n && ckt_replay_before(&r->heap[l + 1], &r->heap[l]))
			m = l + 1;
		if (!ckt_replay_before(&r->heap[m], &e))
			break;
		r->heap[i] = r->heap[m];
		i = m;
	}
	r->heap[i] = e;
}

/* The merge of a few threads. Threads take turns every 1.7 events on the benchmark's trace (5
 * threads), so nearly every burst ends with a step of the heap, whose compares of unrelated
 * threads' keys mispredict; up to this many threads with queued events the merge keeps only
 * the smallest key in place (heap[0]) and finds the runner-up by a scan without branches (at
 * most seven compares, which the next burst needs anyway). Above it, a heap. */
#define CKT_REPLAY_FEW 8

/* The index of the smallest key after the first (heap_n > 1): the runner-up. */
static inline size_t ckt_replay_second(const struct ckt_replay *r)
{
	const struct ckt_hent *h = r->heap;
	if (r->heap_n > CKT_REPLAY_FEW)
		return ckt_replay_before(&h[2], &h[1]) ? 2 : 1; /* heap_n > 2 here */
	size_t j = 1;
	for (size_t i = 2; i < r->heap_n; i++)
		j = ckt_replay_before_bl(&h[i], &h[j]) ? i : j;
	return j;
}

/* The first thread's key became k; j is ckt_replay_second's answer from before the change
 * (heap_n > 1). */
static inline void ckt_replay_top_moved(struct ckt_replay *r, struct ckt_hent k, size_t j)
{
	if (r->heap_n > CKT_REPLAY_FEW) {
		r->heap[0] = k;
		ckt_replay_sift_down(r, 0);
	} else if (ckt_replay_before(&r->heap[j], &k)) {
		r->heap[0] = r->heap[j];
		r->heap[j] = k;
	} else {
		r->heap[0] = k;
	}
}

/* The first thread leaves (its queue ran empty); j as above when heap_n > 1. */
static inline void ckt_replay_top_gone(struct ckt_replay *r, size_t j)
{
	if (r->heap_n > CKT_REPLAY_FEW) {
		r->heap[0] = r->heap[--r->heap_n];
		ckt_replay_sift_down(r, 0);
	} else if (--r->heap_n) {
		r->heap[0] = r->heap[j];
		r->heap[j] = r->heap[r->heap_n];
	}
}

/* A thread's queue starts (it was not in the heap): its key e joins. */
static void ckt_replay_join(struct ckt_replay *r, struct ckt_hent e)
{
	size_t n = r->heap_n++;
	r->heap[n] = e;
	if (n >= CKT_REPLAY_FEW + 1) {
		ckt_replay_sift_up(r, n);
	} else if (n == CKT_REPLAY_FEW) {
		/* one more than a scan takes: the array in no order becomes a heap */
		for (size_t i = r->heap_n / 2; i-- > 0;)
			ckt_replay_sift_down(r, i);
	} else if (n && ckt_replay_before(&e, &r->heap[0])) {
		r->heap[n] = r->heap[0];
		r->heap[0] = e;
	}
}

/* A queue's first size, in events: small, as a trace may hold a hundred thousand threads with
 * an event or two queued each (64 entries each held 633 MB for 200,000 such threads); a busy
 * thread doubles it a few times in its first window and keeps it (ckt_replay_retire). */
#define CKT_REPLAY_QUEUE_MIN 4

/* the memory a queue of cap events takes (whole huge pages from 2 MiB on: ckt_util_big_size) */
static size_t ckt_replay_queue_bytes(size_t cap)
{
	return ckt_util_big_size(cap * sizeof(struct ckt_ev));
}

static __attribute__((noinline)) int ckt_replay_queue_grow(struct ckt_replay *r, struct ckt_thread *th)
{
	if (!th->cap && r->spare) {
		/* a queue that starts again takes the buffer the last big one gave back */
		th->q = r->spare;
		th->cap = r->spare_cap;
		r->spare = NULL;
		return 0;
	}
	size_t cap = th->cap ? th->cap * 2 : CKT_REPLAY_QUEUE_MIN;
	/* the ring keeps its pages (only the new half is fresh memory) */
	struct ckt_ev *q = ckt_util_big_extend(th->q, th->cap * sizeof(*q), cap * sizeof(*q));
	if (!q)
		return CKT_ENOMEM;
	/* every event keeps its number (see ckt_thread.head): those whose slot is now in the new
	 * half move there */
	for (size_t i = th->head; i < th->head + th->n; i++)
		if (i & th->cap)
			q[i & (cap - 1)] = q[i & (th->cap - 1)];
	if (th->kept) {
		th->kept = false; /* retire counts the new buffer again if it keeps it */
		r->kept_bytes -= ckt_replay_queue_bytes(th->cap);
	}
	th->q = q;
	th->cap = cap;
	return 0;
}

/* The slot the next event of tid's thread goes to (the ring has room), or NULL when out of
 * memory; *tip gets the thread index. The caller fills the fields its kind uses (apply reads
 * no others) and calls ckt_replay_commit: the common events are written once, straight into
 * the queue, with no staging copy. */
static inline __attribute__((always_inline)) struct ckt_ev *ckt_replay_slot(struct ckt_replay *r,
									      uint64_t tid, size_t *tip)
{
	size_t ti = r->last_ti - 1;
	if (__builtin_expect(!r->last_ti || r->threads[ti].tid != tid, 0)) {
		long t = ckt_replay_thread(r, tid);
		if (t < 0)
			return NULL;
		ti = (size_t)t;
		r->last_ti = ti + 1;
	}
	struct ckt_thread *th = &r->threads[ti];
	if (__builtin_expect(th->n == th->cap, 0) && ckt_replay_queue_grow(r, th) < 0)
		return NULL;
	*tip = ti;
	return &th->q[(th->head + th->n) & (th->cap - 1)];
}

static inline __attribute__((always_inline)) void ckt_replay_commit(struct ckt_replay *r, size_t ti,
								      const struct ckt_ev *ev)
{
	r->held++;
	/* THREAD_EXIT may come late by design (written when the ring is recycled): a new thread
	 * with the ended one's number may have queued events stamped after it by then */
	if (__builtin_expect(ev->ts < r->threads[ti].last_ts, 0)) {
		if (ev->kind != CKT_EV_THREAD_EXIT)
			r->st.backward_events++;
	} else if (ev->kind != CKT_EV_THREAD_EXIT) {
		r->threads[ti].last_ts = ev->ts;
	}
	if (r->threads[ti].n++ == 0) {
		if (r->threads[ti].idle) {
			r->threads[ti].idle = false;
			r->idle_bytes -= r->threads[ti].cap * sizeof(struct ckt_ev);
		}
		ckt_replay_join(r, (struct ckt_hent){ ev->ts, ckt_replay_tie(ev, ti) });
	}
}

/* The allocation numbered seq (0: none) is being queued on thread ti (before its commit). */
static inline void ckt_replay_pair_note(struct ckt_replay *r, size_t ti, uint64_t seq)
{
	const struct ckt_thread *th = &r->threads[ti];
	if (seq) {
		size_t k = seq % CKT_AM_RECENT;
		r->pairs[k].seq = seq;
		r->pairs[k].pos = th->head + th->n;
		r->pairs[k].ti = ti;
	}
}

/* rel, being queued on thread ti, releases the block of allocation number `pair`: when that
 * allocation is still queued on the same thread, at the same address and not paired yet,
 * both are marked (CKT_EVF_PAIRED: a hint, see there). */
static inline void ckt_replay_pair(struct ckt_replay *r, size_t ti, struct ckt_ev *rel, uint64_t pair)
{
	size_t k = pair % CKT_AM_RECENT;
	const struct ckt_thread *th = &r->threads[ti];
	if (r->pairs[k].seq != pair || r->pairs[k].ti != ti || r->pairs[k].pos < th->head)
		return;
	struct ckt_ev *a = &th->q[r->pairs[k].pos & (th->cap - 1)];
	if (a->kind != CKT_EV_ALLOC && a->kind != CKT_EV_REALLOC_ALLOC)
		return;
	if (a->addr != rel->addr || (a->flags & CKT_EVF_PAIRED))
		return;
	a->flags |= CKT_EVF_PAIRED;
	rel->flags |= CKT_EVF_PAIRED;
	r->st.paired++;
}

/* Queues a copy of ev on tid's thread (the rare kinds). */
static int ckt_replay_push(struct ckt_replay *r, uint64_t tid, const struct ckt_ev *ev)
{
	size_t ti;
	struct ckt_ev *q = ckt_replay_slot(r, tid, &ti);
	if (!q)
		return CKT_ENOMEM;
	*q = *ev;
	ckt_replay_commit(r, ti, q);
	return 0;
}

/* Queues ev with its one more value x (ckt_thread.xq). */
static int ckt_replay_push_x(struct ckt_replay *r, uint64_t tid, const struct ckt_ev *ev, uint64_t x)
{
	size_t ti;
	struct ckt_ev *q = ckt_replay_slot(r, tid, &ti);
	if (!q)
		return CKT_ENOMEM;
	struct ckt_thread *th = &r->threads[ti];
	if (th->xn == th->xcap) {
		size_t cap = th->xcap ? th->xcap * 2 : 4;
		uint64_t *x2 = malloc(cap * sizeof(*x2));
		if (!x2)
			return CKT_ENOMEM;
		for (size_t i = th->xhead; i < th->xhead + th->xn; i++)
			x2[i & (cap - 1)] = th->xq[i & (th->xcap - 1)];
		free(th->xq);
		th->xq = x2;
		th->xcap = cap;
	}
	th->xq[(th->xhead + th->xn++) & (th->xcap - 1)] = x;
	*q = *ev;
	ckt_replay_commit(r, ti, q);
	return 0;
}

/* The value ckt_replay_push_x queued with the event being applied (they go in queue order). */
static uint64_t ckt_replay_xpop(struct ckt_thread *th)
{
	th->xn--;
	return th->xq[th->xhead++ & (th->xcap - 1)];
}

/* ---- applying events ---- */

/* More bytes live at once in one space (heap, sampled estimates, mmap, each CUDA kind) than any
 * address space holds (2^57), or more allocated in all than any run can: the trace is corrupt
 * (ckt_replay_err). Every step is under 2^57 (decode.c), and the observers add up at most
 * seven such spaces, so with these bounds no sum anywhere comes near 2^63. */
#define CKT_REPLAY_MAX_LIVE ((int64_t)1 << 59)
#define CKT_REPLAY_MAX_ALLOCATED ((uint64_t)1 << 62)

/* An error code of the replay as the caller's message. A total allocated past the bound is
 * no corruption: a program that maps and unmaps 64 TiB of address space 65,537 times (no page
 * touched) has it in 0.3 s; the reader's sums cannot hold it, and says that. */
static int ckt_replay_err(const struct ckt_replay *r, struct ckt_error *err, int rc)
{
	if (rc == CKT_EFORMAT && r->allocated_sum > CKT_REPLAY_MAX_ALLOCATED)
		return ckt_util_err(err, rc, "the trace allocates more than 2^62 bytes in all (blocks and "
					     "mappings allocated over the run, freed or not), more than this reader "
					     "can add up: no report");
	if (rc == CKT_EFORMAT)
		return ckt_util_err(err, rc, "corrupt trace: more bytes than any process can have "
					     "(over 2^59 live in one space, or 2^62 allocated in all)");
	return ckt_util_err(err, rc, "out of memory");
}

/* bytes allocated (heap, mmap, CUDA), for the bound above */
static void ckt_replay_allocated(struct ckt_replay *r, uint64_t bytes)
{
	r->allocated_sum += bytes;
	if (__builtin_expect(r->allocated_sum > CKT_REPLAY_MAX_ALLOCATED, 0))
		r->overflow = true;
}

/* the live estimates of the default mode's samples, for the bound above */
static void ckt_replay_sampled_move(struct ckt_replay *r, int64_t est)
{
	r->sampled_live += est;
	if (r->sampled_live > CKT_REPLAY_MAX_LIVE || r->sampled_live < -CKT_REPLAY_MAX_LIVE)
		r->overflow = true;
}

/* Heap totals are kept signed: in the default mode each thread's running total of small
 * blocks reaches the trace in steps, so the sum can dip below zero by up to the stated bound
 * when the heap is nearly empty (one thread's frees counted, another's allocations still
 * pending), and frees of blocks allocated before tracing count too. The reported figures are
 * the signed ones clamped at zero, so nothing wraps to 16 million TiB. */
static void ckt_replay_heap_move(struct ckt_replay *r, int64_t bytes, int64_t blocks, uint64_t ts)
{
	/* the first change after the peak (ckt_replay_agg_late: the heap held still until then) */
	if (bytes && r->flat_until == UINT64_MAX)
		r->flat_until = ts;
	/* each step is under 2^57 (decode.c): see CKT_REPLAY_MAX_LIVE */
	r->heap_signed += bytes;
	r->blocks_signed += blocks;
	if (__builtin_expect(r->heap_signed < -(int64_t)r->st.heap_below_zero, 0))
		r->st.heap_below_zero = (uint64_t)-r->heap_signed;
	if (__builtin_expect(r->heap_signed > CKT_REPLAY_MAX_LIVE || r->heap_signed < -CKT_REPLAY_MAX_LIVE ||
				     r->blocks_signed > CKT_REPLAY_MAX_LIVE || r->blocks_signed < -CKT_REPLAY_MAX_LIVE,
			     0))
		r->overflow = true;
	r->st.heap_bytes = r->heap_signed > 0 ? (uint64_t)r->heap_signed : 0;
	r->st.heap_blocks = r->blocks_signed > 0 ? (uint64_t)r->blocks_signed : 0;
}

static void ckt_replay_note_heap(struct ckt_replay *r, uint64_t ts)
{
	struct ckt_replay_stats *st = &r->st;
	if (st->heap_bytes > st->peak_heap.bytes) {
		st->peak_heap.bytes = st->heap_bytes;
		st->peak_heap.ts = ts;
		r->peak_rises++;
		st->temporary += r->peak_temps; /* live at the peak before, not at this one */
		r->peak_temps = 0;
		st->agg_late_kept = 0;
		st->late_samples_at_peak = 0;
		st->late_frees_at_peak = 0;
		r->late_net = 0;
		r->flat_until = r->phase_after_peak = UINT64_MAX;
		ckt_replay_obs_peak(r, CKT_AT_PEAK_HEAP, ts);
	}
}

/* The first of the n times v[(at + i) % cap], oldest first, later than c; `none` if none. */
static uint64_t ckt_replay_first_after(const uint64_t *v, size_t cap, size_t at, size_t n, uint64_t c,
				       uint64_t none)
{
	if (!n || v[(at + n - 1) % cap] <= c)
		return none;
	size_t lo = 0, hi = n - 1; /* the newest is later than c */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[(at + mid) % cap] > c)
			hi = mid;
		else
			lo = mid + 1;
	}
	return v[(at + lo) % cap];
}

/* An upper bound of the coarse clock's first tick after its value c: the first RSS sample
 * replayed after c + margin (the clock ticks right before each sample, so the sample that
 * follows the tick that set c lies just after c: skipped; its writer's ticks, which the trace
 * does not show, come earlier if anything), from the recent samples or, for a c older than
 * those, the sparser history (a later sample: a looser bound); `none` when no sample follows
 * c yet. */
static uint64_t ckt_replay_tick_after(const struct ckt_replay *r, uint64_t c, uint64_t none)
{
	uint64_t margin = r->agg_tick / 2 < 1000000 ? r->agg_tick / 2 : 1000000;
	c += margin;
	if (r->rss_n && r->rss_ts[r->rss_at] <= c)
		return ckt_replay_first_after(r->rss_ts, CKT_REPLAY_RSS_RECENT, r->rss_at, r->rss_n, c, none);
	uint64_t t = ckt_replay_first_after(r->rss_hist, CKT_REPLAY_RSS_HIST, 0, r->rss_hist_n, c, 0);
	return t ? t : ckt_replay_first_after(r->rss_ts, CKT_REPLAY_RSS_RECENT, r->rss_at, r->rss_n, c, none);
}

/* An RSS sample at ts, for ckt_replay_tick_after. */
static void ckt_replay_rss_time(struct ckt_replay *r, uint64_t ts)
{
	if (r->rss_n == CKT_REPLAY_RSS_RECENT) {
		r->rss_at = (r->rss_at + 1) % CKT_REPLAY_RSS_RECENT;
		r->rss_n--;
	}
	r->rss_ts[(r->rss_at + r->rss_n++) % CKT_REPLAY_RSS_RECENT] = ts;
	if (r->rss_seen++ % r->rss_stride)
		return;
	if (r->rss_hist_n == CKT_REPLAY_RSS_HIST) { /* every other one, from the first */
		for (size_t i = 0; i < CKT_REPLAY_RSS_HIST / 2; i++)
			r->rss_hist[i] = r->rss_hist[2 * i];
		r->rss_hist_n = CKT_REPLAY_RSS_HIST / 2;
		r->rss_stride *= 2;
		if ((r->rss_seen - 1) % r->rss_stride)
			return;
	}
	r->rss_hist[r->rss_hist_n++] = ts;
}

/* One peak's share of a late total d (ckt_replay_agg_late): the peak at `at`, its bytes and
 * the sum of its late totals so far; whether d belongs to it. */
static bool ckt_replay_late_at(uint64_t at, uint64_t *bytes, int64_t *net, int64_t d, uint64_t from,
			       uint64_t prev, uint64_t ts)
{
	if (at < from || at <= prev || at >= ts)
		return false;
	/* the sum's positive part before and after: bytes and sums stay far inside 2^62 */
	int64_t was = *net > 0 ? *net : 0;
	*net += d;
	*bytes = *bytes - (uint64_t)was + (uint64_t)(*net > 0 ? *net : 0);
	return true;
}

/* An AGG sent after its thread idled (format version 6: since): its thread's totals last
 * changed after prev (the thread's previous AGG, after which every change it sends came), no
 * earlier than c = ts - since (its coarse clock then) and before the clock's next tick after
 * c: the first RSS sample after c (without RSS samples, c + agg_tick: the sampling period or
 * flush interval, which the clock lags by more only when the tracer's threads are kept from a
 * core). A peak of the heap (or of RSS, for the heap it shows) held from then on, and before
 * this record, counted without those bytes keeps its moment and counts them now: the thread
 * held them then. Before, a pool thread's last 60 KB, sent at its exit 0.1 s after the peak,
 * made a new peak there, a few bytes above the old one, in no phase (the peak was the 4 MiB of
 * phase msm). A peak within the clock's tick of the change is taken as before it (a block made
 * just after the peak counted at it; under a starved clock, 50 short threads' totals stacked
 * onto one peak), except for growth while the heap held still at the peak (below). The peak
 * counts the sum of the late totals that belong to it where that sum is positive: frees among them cancel allocations among them, in either order (another
 * thread's frees of the blocks a late total put there), but the peak never falls below what
 * the replay saw at its moment, which an earlier or later moment's figures may exceed (a late
 * free lowered the peak below the CSV timeline's top, the true peak being an earlier moment
 * the replay had let go; a later moment's total seen before late frees cancelled late
 * allocations at the peak). With the peak and the current total moved alike, a late total
 * counted at the peak makes no new peak there; one not counted may (its bytes came after). A
 * late total that belongs to an earlier moment than the peak held now cannot raise it past
 * that peak (the replay keeps one moment): such choices stay within the running totals'
 * bound, as the rest of the default mode. */
/* (true when it counted at the peak heap) */
static bool ckt_replay_agg_late(struct ckt_replay *r, const struct ckt_ev *ev, uint64_t prev, uint64_t flat0)
{
	struct ckt_replay_stats *st = &r->st;
	int64_t d = (int64_t)ev->addr;
	bool at_peak = false;
	if (!d || !ev->stack)
		return false;
	uint64_t c = ev->ts > ev->stack ? ev->ts - ev->stack : 0;
	uint64_t from = ckt_replay_tick_after(r, c, r->rss_n ? ev->ts : c + r->agg_tick);
	/* A total that grew, made in the tick or two after a peak (pk < from <= pk + two ticks)
	 * while the heap held still at the peak (no other change of it, and no phase event,
	 * from the peak until from): the top it made was reached then, at a moment the trace
	 * cannot tell, within two ticks of the peak, in its phase, with the heap the peak holds
	 * (its bytes by site and phase are the peak's), so it counts there, and the peak keeps
	 * its moment. Were it taken as after the peak, it made a new peak at its send, the
	 * thread's next action after it idled: four pool workers' last 64,000 bytes each, made as
	 * their burst reached the peak in phase msm, moved the peak 0.1 s on, in no phase, in 19
	 * runs of 20 (tests/progs/burstpeak.c). The bytes then are those of a moment the heap
	 * reached (at most the other threads' pending totals off, as everywhere in this mode).
	 * Not where the heap moved or a phase began or ended in between: a peak main freed at
	 * once, the workers' blocks made after it, counted there, passed the bound (their pending
	 * frees had already made the peak too high), and growth made in the next phase was
	 * named in the old one. Only where the clock ticked (from within two ticks of c): under
	 * a starved clock every change looks that close. */
	uint64_t pk = st->peak_heap.ts, two = 2 * r->agg_tick;
	bool held = d > 0 && from - c <= two && pk < from && from - pk <= two && prev < from &&
		    flat0 >= from && r->phase_after_peak >= from;
	/* (a hostile trace's late totals could wrap the sums: the tracer's are under
	 * CKT_AGG_STEP each, the decoder refuses one past CKT_DECODE_MAX_BYTES, and their sums
	 * are checked below) */
	if (st->peak_heap.bytes &&
	    ckt_replay_late_at(pk, &st->peak_heap.bytes, &r->late_net, d, held ? pk : from, held ? 0 : prev,
			       ev->ts)) {
		st->agg_late_kept++;
		at_peak = true;
		/* the heap and the peak moved alike: it still holds still at the peak */
		if (st->heap_bytes == st->peak_heap.bytes)
			r->flat_until = flat0;
	}
	if (st->peak_rss.seen &&
	    ckt_replay_late_at(st->peak_rss.ts, &st->peak_rss.heap_bytes, &r->late_net_rss, d, from, prev, ev->ts))
		r->late_kept_rss++;
	/* each late total is under 2^57, but many add up: checked after each, so that no sum
	 * wraps (a forged trace's threads each counting 2^57 - 1 at the peak, then freeing it:
	 * a peak heap of 655360 TiB, then a signed overflow; since 0.2.26) */
	if (r->late_net > CKT_REPLAY_MAX_LIVE || r->late_net < -CKT_REPLAY_MAX_LIVE ||
	    r->late_net_rss > CKT_REPLAY_MAX_LIVE || r->late_net_rss < -CKT_REPLAY_MAX_LIVE ||
	    st->peak_heap.bytes > (uint64_t)CKT_REPLAY_MAX_LIVE || st->peak_rss.heap_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE)
		r->overflow = true;
	return at_peak;
}

static void ckt_replay_note_mmap(struct ckt_replay *r, uint64_t ts)
{
	struct ckt_replay_stats *st = &r->st;
	uint64_t total = st->anon_mmap_bytes + st->file_mmap_bytes;
	if (total > (uint64_t)CKT_REPLAY_MAX_LIVE || total < st->anon_mmap_bytes)
		r->overflow = true;
	if (total > st->peak_mmap.bytes) {
		st->peak_mmap.bytes = total;
		st->peak_mmap.ts = ts;
		st->peak_mmap_anon_bytes = st->anon_mmap_bytes;
		st->peak_mmap_file_bytes = st->file_mmap_bytes;
		ckt_replay_obs_peak(r, CKT_AT_PEAK_MMAP, ts);
	}
	if (st->anon_mmap_bytes > st->peak_anon.bytes) {
		st->peak_anon.bytes = st->anon_mmap_bytes;
		st->peak_anon.ts = ts;
	}
	if (st->file_mmap_bytes > st->peak_file.bytes) {
		st->peak_file.bytes = st->file_mmap_bytes;
		st->peak_file.ts = ts;
	}
	if (st->reserved_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE)
		r->overflow = true;
	if (st->reserved_bytes > st->peak_reserved.bytes) {
		st->peak_reserved.bytes = st->reserved_bytes;
		st->peak_reserved.ts = ts;
	}
}

/* the key of the thread that allocated b (its id, and the generation it was then) */
static inline uint64_t ckt_replay_live_tid(const struct ckt_replay *r, const struct ckt_live *b)
{
	return r->threads[b->owner >> 1].tid | (uint64_t)b->gen << 32;
}

/* What a sample of `size` bytes stands for: its weight (*w) and its bytes, rounded */
/* A sample's estimate of bytes, weight x size, in whole bytes: rounded down or up at random,
 * up with the chance of its fraction, so that the sum over samples has the expectation of the
 * weights' sum (rounding each to the nearest, a site of 3-byte blocks sampled at
 * CUZKTRACE_SAMPLE=25 read 1.7% high: every sample 27 bytes for 26.53). The chance is drawn
 * from the block's address and size, a fixed hash (not the tables' per-run key), so a
 * sample's estimate is the same when it comes and when it goes, in every run of the reader. */
static int64_t ckt_replay_sample_est(const struct ckt_replay *r, uint64_t addr, uint64_t size, double *w)
{
	*w = ckt_replay_sample_weight(r->st.sample_r, size);
	double e = *w * (double)size, whole = floor(e);
	uint64_t h = (addr ^ size * 0xbf58476d1ce4e5b9ull) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	double u = (double)(h >> 11) * 0x1p-53; /* in [0, 1) */
	return (int64_t)whole + (u < e - whole);
}

/* A live heap block leaves. A sample of the default mode only leaves the estimates: its
 * bytes are in the AGG totals. */
static void ckt_replay_post_free(struct ckt_replay *r, const struct ckt_live *b, uint64_t ts, int64_t est, double w);

static __attribute__((noinline)) void ckt_replay_sample_gone(struct ckt_replay *r, const struct ckt_live *b,
								uint64_t ts)
{
	struct ckt_thread *th = &r->threads[b->owner >> 1];
	bool late = false;
	for (unsigned k = 0; k < th->n_late; k++)
		if (th->late[k].addr == b->addr) { /* freed before its total came: not in it */
			th->late[k] = th->late[--th->n_late];
			late = th->late_epoch == r->epochs[CKT_AT_PEAK_HEAP];
			break;
		}
	double w;
	int64_t est = ckt_replay_sample_est(r, b->addr, b->size, &w);
	if (!late)
		ckt_replay_post_free(r, b, ts, est, w);
	ckt_replay_sampled_move(r, -est);
	ckt_replay_obs_one(r, b->stack, b->phase, ckt_replay_live_tid(r, b), CKT_SPACE_HEAP, -est, -1, 0, ts, w);
}

/* temp_owner: the owner (struct ckt_live) of a block that goes as a temporary if it is that
 * thread's (CKT_REPLAY_NO_TEMP: none): the thread's last allocation was at this address, and
 * another thread's block there (handed over and freed by this one) is not its temporary. Its
 * bit 0, a sample's in an owner (never a temporary's), says the block was live at the current
 * peak (ckt_replay_obs_change's temp 2, else 1) */
#define CKT_REPLAY_NO_TEMP UINT32_MAX
static inline void ckt_replay_block_gone(struct ckt_replay *r, const struct ckt_live *b, uint64_t ts,
					 uint32_t temp_owner)
{
	if (b->owner & 1) {
		ckt_replay_sample_gone(r, b, ts);
		return;
	}
	unsigned temp = temp_owner != CKT_REPLAY_NO_TEMP && b->owner == (temp_owner & ~1u) ? 1 + (temp_owner & 1) : 0;
	r->st.temporary += temp & 1;
	r->peak_temps += temp >> 1;
	ckt_replay_obs_change(r, b->stack, b->phase, ckt_replay_live_tid(r, b), CKT_SPACE_HEAP,
			      -(int64_t)b->size, -1, temp, ts);
	ckt_replay_heap_move(r, -(int64_t)b->size, -1, ts);
}

/* The block m holds at addr, if any, is gone at ts: true. */
static inline bool ckt_replay_live_gone(struct ckt_replay *r, struct ckt_livemap *m, uint64_t addr, uint64_t ts,
					uint32_t temp_owner)
{
	struct ckt_live *b = m->n || m->has_zero ? ckt_replay_live_find(m, addr) : NULL;
	if (!b)
		return false;
	ckt_replay_block_gone(r, b, ts, temp_owner);
	ckt_replay_live_del(m, b);
	return true;
}

/* A release: the block is in one of the tables at most, most often the young one. An unknown
 * address is normal: the block was allocated before tracing started. */
static void ckt_replay_heap_release(struct ckt_replay *r, uint64_t addr, uint64_t ts, uint32_t temp_owner)
{
	if (!ckt_replay_live_gone(r, &r->young, addr, ts, temp_owner))
		(void)ckt_replay_live_gone(r, &r->blocks, addr, ts, temp_owner);
}

/* An allocation of addr: a block still live there lost its free (a dropped event, or one the
 * tracer could not record); count it and let it go. A young allocation looks in the big table
 * only once the trace has shown it can miss frees (a LOST record, or an inconsistency found
 * by an allocation that did look): a stale block the young allocations of its address pass by
 * is caught by the first allocation there that looks. */
static void ckt_replay_heap_clear(struct ckt_replay *r, uint64_t addr, uint64_t ts, bool young)
{
	if (ckt_replay_live_gone(r, &r->young, addr, ts, CKT_REPLAY_NO_TEMP))
		r->st.inconsistencies++;
	if (young && !r->lost_sum && !r->st.inconsistencies)
		return;
	if (ckt_replay_live_gone(r, &r->blocks, addr, ts, CKT_REPLAY_NO_TEMP))
		r->st.inconsistencies++;
}

/* ckt_replay_heap_clear, then adds nb to m (the young table for a young block). When m has room
 * the lookup of the address in m and the insert are one probe: the empty slot a lookup ends on
 * is where the block goes (before, every allocation hashed and walked its probe run twice). */
static inline int ckt_replay_heap_place(struct ckt_replay *r, struct ckt_livemap *m, const struct ckt_live *nb,
					uint64_t ts, bool young)
{
	if (__builtin_expect(!nb->addr || (m->n + 1) * 2 >= m->cap, 0)) {
		ckt_replay_heap_clear(r, nb->addr, ts, young);
		return ckt_replay_live_add(m, nb);
	}
	/* the order of ckt_replay_heap_clear: the young table, then the big one */
	if (!young && ckt_replay_live_gone(r, &r->young, nb->addr, ts, CKT_REPLAY_NO_TEMP))
		r->st.inconsistencies++;
	struct ckt_live *b = ckt_replay_live_probe(m, nb->addr);
	if (__builtin_expect(b->addr != 0, 0)) {
		/* a stale block: it goes (and with it the rule that spares a young allocation
		 * the big table), and the new block goes where a fresh probe puts it */
		ckt_replay_block_gone(r, b, ts, CKT_REPLAY_NO_TEMP);
		ckt_replay_live_del(m, b);
		r->st.inconsistencies++;
		if (young && ckt_replay_live_gone(r, &r->blocks, nb->addr, ts, CKT_REPLAY_NO_TEMP))
			r->st.inconsistencies++;
		ckt_replay_live_put(m, nb);
		return 0;
	}
	if (young && (r->lost_sum || r->st.inconsistencies) &&
	    ckt_replay_live_gone(r, &r->blocks, nb->addr, ts, CKT_REPLAY_NO_TEMP))
		r->st.inconsistencies++;
	*b = *nb;
	m->n++;
	return 0;
}

/* A sample of the default mode taken after the peak heap's moment while the heap held still
 * at that peak (no change of the heap, no phase event since): its block's bytes come with its
 * thread's next AGG, which counts at that peak when it holds growth made in the tick or two
 * after it (ckt_replay_agg_late, `held`); then the sample stands for bytes the peak holds
 * (ckt_replay_late_samples). Kept per thread until that AGG, CKT_REPLAY_POST at most. */
/* ts is after the peak heap's moment, and the heap has held still at that peak since (no
 * change of the heap, no phase event) */
static bool ckt_replay_held_after_peak(const struct ckt_replay *r, uint64_t ts)
{
	return r->st.peak_heap.bytes && ts > r->st.peak_heap.ts && r->flat_until == UINT64_MAX &&
	       r->phase_after_peak == UINT64_MAX;
}

static void ckt_replay_post_sample(struct ckt_replay *r, size_t ti, const struct ckt_live *b, uint64_t ts)
{
	struct ckt_thread *th = &r->threads[ti];
	uint64_t epoch = r->epochs[CKT_AT_PEAK_HEAP];
	if (!ckt_replay_held_after_peak(r, ts))
		return;
	if (th->late_epoch != epoch) {
		th->late_epoch = epoch;
		th->n_late = 0;
		th->late_unsure = false;
	}
	if (th->n_late < CKT_REPLAY_POST)
		th->late[th->n_late++] = (struct ckt_late_sample){ b->addr, b->stack, b->size, b->phase };
	else
		th->late_unsure = true;
}

/* A sample freed (by thread free_ti's FREE or REALLOC) after the peak heap's moment while the
 * heap held still at that peak, and live at it: its estimate is in the peak's, and its bytes
 * leave the totals with the freeing thread's next AGG, which counts at that peak when it holds
 * growth made in the tick or two after it (ckt_replay_agg_late, `held`): then the sample
 * leaves the peak's estimates too (ckt_replay_late_samples). Before 0.2.58 it stayed: blocks
 * grown one by one into new ones (realloc, or malloc and free) after such a peak counted
 * twice there, the old site's samples with the new's (3,000 blocks of 1,000 bytes grown to
 * 1,010: the old site about 1.6 MB at the peak, where none of its blocks was live). Live at
 * the peak: not one of its thread's samples since the peak (found and taken out of late[] by
 * ckt_replay_sample_gone), where those are all known (late_unsure). Only for traces of a
 * tracer that sends the thread's pending totals before a sample's free (0.2.58 on: before, a
 * tick's send of them could come right after the free, without it, and the free would be
 * taken out with totals that do not hold it; such traces keep the estimates as before). */
static void ckt_replay_post_free(struct ckt_replay *r, const struct ckt_live *b, uint64_t ts, int64_t est, double w)
{
	uint64_t epoch = r->epochs[CKT_AT_PEAK_HEAP];
	const struct ckt_thread *owner = &r->threads[b->owner >> 1];
	if (!r->late_frees || r->free_ti == SIZE_MAX || !ckt_replay_held_after_peak(r, ts) ||
	    (owner->late_epoch == epoch && owner->late_unsure))
		return;
	struct ckt_thread *th = &r->threads[r->free_ti];
	if (th->gone_epoch != epoch) {
		th->gone_epoch = epoch;
		th->n_gone = 0;
	}
	if (!th->gone && !(th->gone = malloc(CKT_REPLAY_GONE * sizeof(*th->gone))))
		return; /* (out of memory: the estimate stays at the peak, as before 0.2.58) */
	if (th->n_gone < CKT_REPLAY_GONE)
		th->gone[th->n_gone++] = (struct ckt_late_gone){ b->stack, ckt_replay_live_tid(r, b), est, w, b->phase };
}

/* Thread th's AGG was replayed (at_peak: it counted at the peak heap): the samples it took
 * after that peak, while the heap held still there, count at the peak too, in the estimates
 * by site, phase and thread (the observers' at_peak; their current values do not change).
 * Before 0.2.37 they were left out, being stamped after the peak's moment: the burst that
 * made the peak showed its last samples' sites and phases without them (a site or phase of
 * the burst could read 0 B at the peak, its bytes `in no site's estimate`). */
/* The observers' at_peak for the peak heap: bytes and blocks of a at that peak. */
static void ckt_replay_obs_at_peak_heap(struct ckt_replay *r, const struct ckt_attr *a, int64_t bytes, int64_t blocks)
{
	for (size_t i = 0; i < r->n_obs; i++)
		if (r->obs[i].at_peak)
			r->obs[i].at_peak(r->obs[i].ctx, a, CKT_AT_PEAK_HEAP, bytes, blocks);
}

static void ckt_replay_late_samples(struct ckt_replay *r, struct ckt_thread *th, bool at_peak)
{
	uint64_t epoch = r->epochs[CKT_AT_PEAK_HEAP];
	if (at_peak && th->late_epoch == epoch) {
		ckt_replay_obs_flush(r);
		for (unsigned k = 0; k < th->n_late; k++) {
			const struct ckt_late_sample *x = &th->late[k];
			double w;
			int64_t est = ckt_replay_sample_est(r, x->addr, x->size, &w);
			struct ckt_attr a = { x->stack, x->phase, ckt_replay_key(th), CKT_SPACE_HEAP, w };
			r->st.late_samples_at_peak++;
			ckt_replay_obs_at_peak_heap(r, &a, est, 1);
		}
	} else if (th->n_late && th->late_epoch == epoch) {
		th->late_unsure = true; /* they never count at the peak: a free of one cannot tell */
	}
	/* the samples it freed that were live at the peak (ckt_replay_post_free) */
	if (at_peak && th->gone_epoch == epoch && th->n_gone) {
		ckt_replay_obs_flush(r);
		for (unsigned k = 0; k < th->n_gone; k++) {
			const struct ckt_late_gone *x = &th->gone[k];
			struct ckt_attr a = { x->stack, x->phase, x->tid, CKT_SPACE_HEAP, x->w };
			r->st.late_frees_at_peak++;
			ckt_replay_obs_at_peak_heap(r, &a, -x->est, -1);
		}
	}
	th->n_late = 0;
	th->n_gone = 0;
}

static int ckt_replay_heap_alloc(struct ckt_replay *r, const struct ckt_ev *ev, size_t ti)
{
	bool sampled = ev->fn & CKT_FN_SAMPLED;
	const struct ckt_thread *th = &r->threads[ti];
	struct ckt_live nb = { ev->addr, ev->len, ev->stack, (uint16_t)ev->phase, (uint16_t)th->gen,
			       (uint32_t)(ti << 1 | sampled) };
	uint64_t tid = ckt_replay_key(th);
	bool young = ev->flags & CKT_EVF_PAIRED;

	if (ckt_replay_heap_place(r, young ? &r->young : &r->blocks, &nb, ev->ts, young) < 0)
		return CKT_ENOMEM;
	ckt_replay_allocated(r, ev->len);
	if (sampled) {
		double w;
		int64_t est = ckt_replay_sample_est(r, nb.addr, nb.size, &w);
		r->st.sampled_allocs++;
		ckt_replay_sampled_move(r, est);
		ckt_replay_obs_one(r, nb.stack, nb.phase, tid, CKT_SPACE_HEAP, est, 1, 0, ev->ts, w);
		ckt_replay_post_sample(r, ti, &nb, ev->ts);
		return 0;
	}
	ckt_replay_obs_bytes(r, nb.stack, nb.phase, tid, CKT_SPACE_HEAP, (int64_t)ev->len, 1, ev->ts);
	ckt_replay_heap_move(r, (int64_t)ev->len, 1, ev->ts);
	ckt_replay_note_heap(r, ev->ts);
	return 0;
}

/* [addr, addr + len rounded up to whole pages), clamped at the top of the address space. */
static uint64_t ckt_replay_page_end(const struct ckt_replay *r, uint64_t addr, uint64_t len)
{
	uint64_t mask = r->page_size - 1;
	uint64_t rl = len > UINT64_MAX - mask ? UINT64_MAX : (len + mask) & ~mask;
	return rl > UINT64_MAX - addr ? UINT64_MAX : addr + rl;
}

/* A range whose protection is PROT_NONE is reserved address space, not memory (the CUDA driver
 * reserves gigabytes so): its bytes count in reserved_bytes, not in the mapped bytes, their
 * peaks or any site; mprotect moves them between the two. */
static inline bool ckt_replay_range_mapped(const struct ckt_range *g)
{
	return (g->prot & 7) != 0;
}

/* bytes of range g come (add) or go (!add) in the totals and the observers, with blocks live
 * blocks more (one mapping is one block, however many pieces it is in) */
static void ckt_replay_range_bytes(struct ckt_replay *r, const struct ckt_range *g, uint64_t bytes, bool add,
				   int blocks, uint64_t ts)
{
	int64_t delta = add ? (int64_t)bytes : -(int64_t)bytes;
	if (!ckt_replay_range_mapped(g)) {
		r->st.reserved_bytes += (uint64_t)delta;
		delta = 0;
	} else if (g->flags & CKT_MAP_ANON) {
		r->st.anon_mmap_bytes += (uint64_t)delta;
	} else {
		r->st.file_mmap_bytes += (uint64_t)delta;
	}
	if (delta || blocks)
		ckt_replay_obs_bytes(r, g->stack, g->phase, g->tid,
				     g->flags & CKT_MAP_ANON ? CKT_SPACE_ANON : CKT_SPACE_FILE, delta, blocks, ts);
}

/* bytes of range g are unmapped; gone: all of g */
static void ckt_replay_sub_range(struct ckt_replay *r, struct ckt_range *g, uint64_t bytes, bool gone,
				  uint64_t ts)
{
	ckt_replay_range_bytes(r, g, bytes, false, gone && ckt_replay_piece_gone(g) ? -1 : 0, ts);
}

/* Removes [s, e) from the live mappings, trimming or splitting ranges that straddle it. */
static int ckt_replay_unmap(struct ckt_replay *r, uint64_t s, uint64_t e, uint64_t ts)
{
	struct ckt_rangeset *rs = &r->maps;
	size_t i = ckt_replay_range_lower(rs, s);

	size_t gone_at = 0, gone = 0; /* ranges wholly inside [s, e): removed together at the end
				       * (one memmove each was quadratic: 100,000 holes, 39 s) */
	if (e <= s)
		return 0; /* zero length: nothing to remove, and no reason to split a range at s */
	while (i < rs->n && ckt_replay_range_at(rs, i)->start < e) {
		struct ckt_range *g = ckt_replay_range_at(rs, i);
		uint64_t lo = g->start > s ? g->start : s, hi = g->end < e ? g->end : e;
		ckt_replay_sub_range(r, g, hi - lo, g->start >= s && g->end <= e, ts);
		if (g->start < s && g->end > e) {
			struct ckt_range tail = *g;
			tail.start = e;
			g->end = s;
			++*g->pieces; /* a hole: one mapping in two ranges */
			return ckt_replay_range_insert_at(rs, i + 1, &tail);
		}
		if (g->start < s) {
			g->end = s;
			i++;
		} else if (g->end > e) {
			g->start = e;
			i++;
		} else {
			if (!gone++)
				gone_at = i;
			i++;
		}
	}
	if (gone)
		ckt_replay_range_remove(rs, gone_at, gone);
	return 0;
}

static int ckt_replay_map(struct ckt_replay *r, const struct ckt_range *v0, uint64_t ts)
{
	if (v0->end <= v0->start)
		return 0;
	/* whatever was there is replaced (MAP_FIXED, or a mapping we missed being unmapped) */
	int rc = ckt_replay_unmap(r, v0->start, v0->end, ts);
	if (rc < 0)
		return rc;
	struct ckt_range nv = *v0, *v = &nv;
	if (!(nv.pieces = malloc(sizeof(*nv.pieces))))
		return CKT_ENOMEM;
	*nv.pieces = 1;
	rc = ckt_replay_range_insert_at(&r->maps, ckt_replay_range_lower(&r->maps, v->start), v);
	if (rc < 0) {
		free(nv.pieces);
		return rc;
	}
	ckt_replay_range_bytes(r, v, v->end - v->start, true, 1, ts);
	return 0;
}

/* ---- mremap: the pieces move with their attributes ----
 * The old range may be several of our ranges: pieces of one mapping that mprotect made differ
 * (mapped and reserved), or mappings of different sites and phases that the kernel merged into
 * one area (adjacent anonymous mappings alike in all it sees), and since Linux 6.17 a move of
 * several areas at once. Each piece keeps its attributes at its offset in the new range; the
 * pieces of one mapping stay one mapping (one live block), a new one. A part we never saw
 * mapped is a hole, which stays one at its offset, where the kernel allows holes: an mremap
 * that shrinks (it unmaps the tail and leaves the rest as it is, holes and all) or, since
 * Linux 6.17, one that moves or copies (MREMAP_DONTUNMAP) several areas without resizing,
 * area by area, leaving what lies under a hole at the new place as it was. Where it does not
 * (a range that grows, every range we know nothing of, and a second mapping of a shared area
 * by an old size of 0 whose pieces known run without a gap) the kernel found one area there,
 * so such parts were mapped unseen: most likely anonymous (glibc's realloc of a large block),
 * so taken as that. An mremap that releases nothing (MREMAP_DONTUNMAP, or old size 0: a
 * second mapping of shared pages) copies the pieces of as many bytes from the old start,
 * which stay where they are. */

static int ckt_replay_mr_push(struct ckt_thread *th, const struct ckt_range *g, uint64_t lo, uint64_t hi,
			      uint64_t base)
{
	if (th->mr_n == th->mr_cap) {
		uint32_t cap = th->mr_cap ? th->mr_cap * 2 : 4;
		struct ckt_mr *p = cap > th->mr_cap ? realloc(th->mr, cap * sizeof(*p)) : NULL;
		if (!p)
			return CKT_ENOMEM;
		th->mr = p;
		th->mr_cap = cap;
	}
	struct ckt_mr *v = &th->mr[th->mr_n++];
	v->g = *g;
	v->g.start = lo - base;
	v->g.end = hi - base;
	return 0;
}

static int ckt_replay_cmp_mr(const void *a, const void *b)
{
	const struct ckt_mr *x = *(const struct ckt_mr *const *)a, *y = *(const struct ckt_mr *const *)b;
	uintptr_t px = (uintptr_t)x->g.pieces, py = (uintptr_t)y->g.pieces;
	return px != py ? (px > py) - (px < py) : (x > y) - (x < y);
}

/* The pieces of [s, e) (s < e) into th->mr, with offsets from s, each with the number of its
 * old mapping among them (group; a part never seen mapped is a group of its own), taken while
 * the old mappings' counters are alive: what put compares. holes: parts never seen mapped
 * are left out (holes), unless no part was seen mapped at all. */
static int ckt_replay_mr_collect(struct ckt_replay *r, struct ckt_thread *th, uint64_t s, uint64_t e,
				 bool holes)
{
	const struct ckt_range dflt = { 0, 0, 0, 0, 3 /* PROT_READ|PROT_WRITE */, CKT_MAP_ANON,
					ckt_replay_key(th), NULL };
	struct ckt_rangeset *rs = &r->maps;
	uint64_t at = s;
	int rc = 0;
	th->mr_n = 0;
	th->mr_len = e - s;
	for (size_t i = ckt_replay_range_lower(rs, s); rc == 0 && i < rs->n && ckt_replay_range_at(rs, i)->start < e; i++) {
		const struct ckt_range *g = ckt_replay_range_at(rs, i);
		uint64_t lo = g->start > s ? g->start : s, hi = g->end < e ? g->end : e;
		if (lo > at && !holes)
			rc = ckt_replay_mr_push(th, &dflt, at, lo, s);
		if (rc == 0)
			rc = ckt_replay_mr_push(th, g, lo, hi, s);
		at = hi;
	}
	if (rc == 0 && at < e && (!holes || th->mr_n == 0))
		rc = ckt_replay_mr_push(th, &dflt, at, e, s);
	struct ckt_mr **by = rc == 0 ? malloc(th->mr_n * sizeof(*by)) : NULL;
	if (!by) {
		th->mr_n = 0;
		return rc < 0 ? rc : CKT_ENOMEM;
	}
	for (uint32_t k = 0; k < th->mr_n; k++)
		by[k] = &th->mr[k];
	qsort(by, th->mr_n, sizeof(*by), ckt_replay_cmp_mr);
	th->mr_groups = 0;
	for (uint32_t k = 0; k < th->mr_n; k++) {
		if (!(k && by[k]->g.pieces && by[k]->g.pieces == by[k - 1]->g.pieces))
			th->mr_groups++;
		by[k]->group = th->mr_groups;
	}
	for (uint32_t k = 0; k < th->mr_n; k++)
		th->mr[k].g.pieces = NULL; /* the unmap may free them */
	free(by);
	return 0;
}

/* The end of the run of th->mr's pieces from k on (k < n) that follow each other without a
 * gap, up to n: the index after its last */
static uint32_t ckt_replay_mr_run(const struct ckt_thread *th, uint32_t k, uint32_t n)
{
	while (++k < n && th->mr[k].g.start == th->mr[k - 1].g.end)
		;
	return k;
}

/* MREMAP's release half, [s, e) (before it is unmapped); one that releases nothing takes the
 * pieces of the new length's bytes from s, which stay (new_end: s + the new length, in pages).
 * Holes stay holes unless the range grows (the kernel grows one area only). */
static int ckt_replay_mremap_take(struct ckt_replay *r, struct ckt_thread *th, uint64_t s, uint64_t e,
				  uint64_t new_end)
{
	th->mr_n = 0;
	if (s < e)
		return ckt_replay_mr_collect(r, th, s, e, new_end <= e);
	if (s >= new_end)
		return 0;
	int rc = ckt_replay_mr_collect(r, th, s, new_end, true);
	/* Nothing released: MREMAP_DONTUNMAP, or an old size of 0, a second mapping of a shared
	 * area, which the trace does not tell apart. The second makes one area of the new length,
	 * which may reach past what the trace knows of the old one (a memfd mapped 4 pages, mapped
	 * again 16: the kernel has 16, holes were 4); DONTUNMAP of several areas with holes between
	 * them (Linux 6.17) keeps the holes. So where the pieces found run from s without a gap,
	 * the last one reaches the new end, as in a range that grows. */
	if (rc == 0 && th->mr_n && th->mr[0].g.start == 0 && ckt_replay_mr_run(th, 0, th->mr_n) == th->mr_n)
		th->mr_len = th->mr[th->mr_n - 1].g.end;
	return rc;
}

/* MREMAP's map half: the pieces at their offsets in [s, e), cut at e; where the pieces reach
 * the old range's end without a hole, the last one reaches e (a range that grew). */
static int ckt_replay_mremap_put(struct ckt_replay *r, struct ckt_thread *th, uint64_t s, uint64_t e, uint64_t ts)
{
	size_t n = 0;
	int rc = 0;
	if (e <= s || !th->mr_n)
		return 0;
	while (n < th->mr_n && th->mr[n].g.start < e - s)
		n++;
	if (n == 0) { /* the new range lies in a hole of the old one: nothing moved */
		th->mr_n = 0;
		return 0;
	}
	/* cut at e; a range that grew was one area with no hole (collect filled any), whose
	 * last piece grows */
	if (th->mr[n - 1].g.end > e - s || e - s > th->mr_len)
		th->mr[n - 1].g.end = e - s;
	for (size_t k = 0; k < n; k++) {
		th->mr[k].g.start += s;
		th->mr[k].g.end += s;
	}
	/* whatever was there is replaced, run by run of pieces: the kernel moves the areas of a
	 * range with holes one by one, and what lies under a hole stays mapped */
	for (uint32_t k = 0, j; k < n && rc == 0; k = j) {
		j = ckt_replay_mr_run(th, k, (uint32_t)n);
		rc = ckt_replay_unmap(r, th->mr[k].g.start, th->mr[j - 1].g.end, ts);
	}
	/* a new counter for each old mapping's pieces (its group); the first of each in address
	 * order counts the live block */
	uint32_t **cnt = rc < 0 ? NULL : calloc((size_t)th->mr_groups + 1, sizeof(*cnt));
	if (!cnt) {
		th->mr_n = 0;
		return rc < 0 ? rc : CKT_ENOMEM;
	}
	for (size_t k = 0; k < n && rc == 0; k++) {
		struct ckt_range *v = &th->mr[k].g;
		uint32_t **c = &cnt[th->mr[k].group];
		bool first = !*c;
		if (first && !(*c = calloc(1, sizeof(**c)))) {
			rc = CKT_ENOMEM;
			break;
		}
		v->pieces = *c;
		++*v->pieces;
		rc = ckt_replay_range_insert_at(&r->maps, ckt_replay_range_lower(&r->maps, v->start), v);
		if (rc == 0)
			ckt_replay_range_bytes(r, v, v->end - v->start, true, first, ts);
		else if (!--*v->pieces) /* not inserted: its share of the counter */
			free(v->pieces);
	}
	free(cnt);
	th->mr_n = 0;
	return rc;
}

/* Splits the range at index i in two at addr (inside it): one mapping, one more piece. */
static int ckt_replay_range_split(struct ckt_rangeset *rs, size_t i, uint64_t addr)
{
	struct ckt_range *g = ckt_replay_range_at(rs, i), tail = *g;
	tail.start = addr;
	g->end = addr;
	++*g->pieces;
	int rc = ckt_replay_range_insert_at(rs, i + 1, &tail);
	if (rc < 0) { /* undone: the set stays as it was (nothing moved) */
		g->end = tail.end;
		--*g->pieces;
	}
	return rc;
}

/* Whether range a and the next one, b, are pieces of one mapping that agree (both mapped, or
 * both reserved) and touch: then they are one range again, as the kernel joins them. */
static bool ckt_replay_range_joins(const struct ckt_range *a, const struct ckt_range *b)
{
	return a->pieces == b->pieces && a->end == b->start &&
	       ckt_replay_range_mapped(a) == ckt_replay_range_mapped(b);
}

/* Joins range i and range i + 1 (ckt_replay_range_joins). */
static void ckt_replay_range_join(struct ckt_rangeset *rs, size_t i)
{
	struct ckt_range *g = ckt_replay_range_at(rs, i);
	g->end = ckt_replay_range_at(rs, i + 1)->end;
	--*g->pieces;
	ckt_replay_range_remove(rs, i + 1, 1);
}

/* mprotect: the live mappings' pages in [s, e) now have protection prot. Only whether pages are
 * mapped or reserved (PROT_NONE) matters here: a range that turns from one to the other is split
 * off where it straddles s or e, moves its bytes, and joins its neighbours of the same mapping
 * that now agree with it; a change between read-write and read-execute (a JIT's) touches
 * nothing. Pages no range holds are left alone. */
static int ckt_replay_protect(struct ckt_replay *r, uint64_t s, uint64_t e, uint32_t prot, uint64_t ts)
{
	struct ckt_rangeset *rs = &r->maps;
	size_t want = (prot & 7) == 0; /* the ranges that will be reserved */
	for (size_t i = ckt_replay_range_lower(rs, s); e > s && i < rs->n && ckt_replay_range_at(rs, i)->start < e; i++) {
		int rc;
		const struct ckt_range *h = ckt_replay_range_at(rs, i);
		if (ckt_replay_range_mapped(h) == ((prot & 7) != 0)) {
			/* a chunk whose ranges all agree already is passed by whole: pieces of one
			 * area for the kernel (mappings side by side) are one range each here */
			const struct ckt_rchunk *c = rs->c[rs->last];
			if (c->reserved == (want ? c->n : 0)) {
				i = rs->before[rs->last] + c->n - 1;
				rs->last++; /* the next chunk's first range comes next (a hint only) */
			}
			continue;
		}
		if (h->start < s) { /* the head keeps its protection */
			if ((rc = ckt_replay_range_split(rs, i, s)) < 0)
				return rc;
			continue; /* the loop moves on to the part from s */
		}
		if (h->end > e && (rc = ckt_replay_range_split(rs, i, e)) < 0)
			return rc;
		struct ckt_range *g = ckt_replay_range_at(rs, i); /* (a split may have moved it) */
		rs->c[rs->last]->reserved += want ? 1 : (size_t)-1; /* g's chunk: range_at's hint */
		ckt_replay_range_bytes(r, g, g->end - g->start, false, 0, ts);
		g->prot = prot;
		ckt_replay_range_bytes(r, g, g->end - g->start, true, 0, ts);
		if (i + 1 < rs->n && ckt_replay_range_joins(ckt_replay_range_at(rs, i), ckt_replay_range_at(rs, i + 1)))
			ckt_replay_range_join(rs, i);
		if (i > 0 && ckt_replay_range_joins(ckt_replay_range_at(rs, i - 1), ckt_replay_range_at(rs, i)))
			ckt_replay_range_join(rs, --i);
	}
	return 0;
}

static void ckt_replay_rss(struct ckt_replay *r, const struct ckt_ev *ev)
{
	struct ckt_replay_stats *st = &r->st;
	st->rss_samples++;
	ckt_replay_rss_time(r, ev->ts);
	if (!st->peak_rss.seen || ev->len > st->peak_rss.bytes) {
		st->peak_rss.seen = true;
		r->late_net_rss = 0;
		r->late_kept_rss = 0;
		st->peak_rss.ts = ev->ts;
		st->peak_rss.bytes = ev->len;
		st->peak_rss.heap_bytes = st->heap_bytes;
		st->peak_rss.anon_mmap_bytes = st->anon_mmap_bytes;
		st->peak_rss.file_mmap_bytes = st->file_mmap_bytes;
		st->peak_rss.gpu_bytes = st->gpu_bytes;
		st->peak_rss.pinned_bytes = st->pinned_bytes;
		/* the split of this sample only (a detail at its instant, which the tracer writes
		 * right after it, fills it in: ckt_replay_rss_detail). Since 0.2.59: a sample whose
		 * status could not be read (the program took the descriptors) showed the split of
		 * an earlier, lower one: 556 KiB anonymous for a peak of 67.8 MiB */
		st->peak_rss.has_detail = r->have_detail && r->detail_ts == ev->ts;
		st->peak_rss.hwm = r->detail[0];
		st->peak_rss.anon = r->detail[1];
		st->peak_rss.file = r->detail[2];
		st->peak_rss.shmem = r->detail[3];
		ckt_replay_obs_peak(r, CKT_AT_PEAK_RSS, ev->ts);
	}
	if (r->sink) {
		ckt_replay_obs_flush(r);
		struct ckt_sample s = { ev->ts, ev->len, st->heap_bytes, st->anon_mmap_bytes,
					st->file_mmap_bytes, st->gpu_bytes, st->pinned_bytes, NULL };
		r->sink(r->sink_ctx, &s);
	}
}

static void ckt_replay_rss_detail(struct ckt_replay *r, const struct ckt_ev *ev, uint64_t shmem)
{
	struct ckt_replay_stats *st = &r->st;
	r->have_detail = true;
	r->detail_ts = ev->ts;
	r->detail[0] = ev->len;
	r->detail[1] = ev->addr;
	r->detail[2] = ev->stack;
	r->detail[3] = shmem;
	if (ev->len > st->hwm_max)
		st->hwm_max = ev->len;
	/* a detail sample taken in the same instant as the peak RSS sample describes it too */
	if (st->peak_rss.seen && st->peak_rss.ts == ev->ts) {
		st->peak_rss.has_detail = true;
		st->peak_rss.hwm = r->detail[0];
		st->peak_rss.anon = r->detail[1];
		st->peak_rss.file = r->detail[2];
		st->peak_rss.shmem = r->detail[3];
	}
}

/* ---- CUDA ---- */

static int ckt_replay_cuda_is_gpu(unsigned kind)
{
	return kind == CKT_CUDA_DEVICE || kind == CKT_CUDA_POOL || kind == CKT_CUDA_VMM;
}

/* The device with this ordinal, created on first sight; NULL when out of memory. */
#define CKT_REPLAY_MAX_DEVICES 256

static struct ckt_cuda_device *ckt_replay_cuda_device(struct ckt_replay *r, uint32_t ordinal)
{
	struct ckt_replay_stats *st = &r->st;
	for (size_t i = 0; i < st->n_cuda_devices; i++)
		if (st->cuda_devices[i].ordinal == ordinal)
			return &st->cuda_devices[i];
	if (st->n_cuda_devices == CKT_REPLAY_MAX_DEVICES) {
		/* more than any machine has (16 GPUs of 7 MIG instances each is 112): a corrupt
		 * trace, which must not make each lookup a long walk; said in a warning */
		st->cuda_device_overflow++;
		return &r->cuda_overflow;
	}
	if (st->n_cuda_devices == r->cap_cuda_devices) {
		size_t cap = r->cap_cuda_devices ? r->cap_cuda_devices * 2 : 8;
		struct ckt_cuda_device *d = realloc(st->cuda_devices, cap * sizeof(*d));
		if (!d)
			return NULL;
		st->cuda_devices = d;
		r->cap_cuda_devices = cap;
	}
	struct ckt_cuda_device *d = &st->cuda_devices[st->n_cuda_devices++];
	memset(d, 0, sizeof(*d));
	d->ordinal = ordinal;
	return d;
}

static void ckt_replay_cuda_text(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

static int ckt_replay_cuda_describe(struct ckt_replay *r, const struct ckt_record *rec)
{
	if (rec->u.cuda_device.ordinal >= CKT_CUDA_NO_DEVICE)
		return 0;
	struct ckt_cuda_device *d = ckt_replay_cuda_device(r, (uint32_t)rec->u.cuda_device.ordinal);
	if (!d)
		return CKT_ENOMEM;
	ckt_replay_cuda_text(d->uuid, sizeof(d->uuid), rec->u.cuda_device.uuid, rec->u.cuda_device.uuid_len);
	ckt_replay_cuda_text(d->name, sizeof(d->name), rec->u.cuda_device.name, rec->u.cuda_device.name_len);
	return 0;
}

/* Adds (sign > 0) or removes a block's bytes from every total it belongs to. */
static enum ckt_space ckt_replay_cuda_space(unsigned kind)
{
	return ckt_replay_cuda_is_gpu(kind)    ? CKT_SPACE_GPU
	       : kind == CKT_CUDA_PINNED  ? CKT_SPACE_PINNED
	       : kind == CKT_CUDA_MANAGED ? CKT_SPACE_MANAGED
					  : CKT_SPACE_OTHER;
}

static int ckt_replay_cuda_account(struct ckt_replay *r, const struct ckt_block *b, int sign,
				   uint64_t ts)
{
	unsigned kind = b->cu_kind;
	uint32_t dev = b->cu_dev;
	uint64_t size = b->size;
	struct ckt_replay_stats *st = &r->st;
	ckt_replay_obs_bytes(r, b->stack, b->phase, b->tid, ckt_replay_cuda_space(kind),
			     sign > 0 ? (int64_t)size : -(int64_t)size, sign, ts);
	uint64_t *kb = kind < 6 ? &st->cuda_bytes[kind] : NULL;
	uint64_t *tot = ckt_replay_cuda_is_gpu(kind) ? &st->gpu_bytes
			: kind == CKT_CUDA_PINNED ? &st->pinned_bytes
			: kind == CKT_CUDA_MANAGED ? &st->managed_bytes
			: kind == CKT_CUDA_REGISTERED ? &st->registered_bytes : NULL;
	struct ckt_cuda_device *d = NULL;
	uint64_t *nodev = ckt_replay_cuda_is_gpu(kind) && dev == CKT_CUDA_NO_DEVICE ? &st->nodev_bytes : NULL;
	if (ckt_replay_cuda_is_gpu(kind) && dev != CKT_CUDA_NO_DEVICE) {
		d = ckt_replay_cuda_device(r, dev);
		if (!d)
			return CKT_ENOMEM;
	}
	if (sign > 0) {
		ckt_replay_allocated(r, size);
		if (kb)
			*kb += size;
		if (tot)
			*tot += size;
		if (d && (d->bytes += size) > d->peak.bytes) {
			d->peak.bytes = d->bytes;
			d->peak.ts = ts;
		}
		if (nodev && (*nodev += size) > st->peak_nodev.bytes) {
			st->peak_nodev.bytes = *nodev;
			st->peak_nodev.ts = ts;
		}
	} else {
		if (kb)
			*kb -= size;
		if (tot)
			*tot -= size;
		if (d)
			d->bytes -= size;
		if (nodev)
			*nodev -= size;
		return 0;
	}
	if (st->gpu_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE || st->pinned_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE ||
	    st->managed_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE || st->registered_bytes > (uint64_t)CKT_REPLAY_MAX_LIVE ||
	    (kb && *kb > (uint64_t)CKT_REPLAY_MAX_LIVE) || (d && d->bytes > (uint64_t)CKT_REPLAY_MAX_LIVE))
		r->overflow = true;
	if (st->gpu_bytes > st->peak_gpu.bytes) {
		st->peak_gpu.bytes = st->gpu_bytes;
		st->peak_gpu.ts = ts;
		memcpy(st->peak_gpu_kind, st->cuda_bytes, sizeof(st->peak_gpu_kind));
		ckt_replay_obs_peak(r, CKT_AT_PEAK_GPU, ts);
	}
	if (st->pinned_bytes > st->peak_pinned.bytes) {
		st->peak_pinned.bytes = st->pinned_bytes;
		st->peak_pinned.ts = ts;
		ckt_replay_obs_peak(r, CKT_AT_PEAK_PINNED, ts);
	}
	if (st->managed_bytes > st->peak_managed.bytes) {
		st->peak_managed.bytes = st->managed_bytes;
		st->peak_managed.ts = ts;
	}
	if (st->registered_bytes > st->peak_registered.bytes) {
		st->peak_registered.bytes = st->registered_bytes;
		st->peak_registered.ts = ts;
	}
	return 0;
}

static int ckt_replay_cuda_alloc(struct ckt_replay *r, const struct ckt_ev *ev, uint64_t tid,
				 uint32_t device)
{
	struct ckt_heapmap *m = ev->fn == CKT_CU_MEM_CREATE ? &r->cuda_handles : &r->cuda_blocks;
	struct ckt_block nb = { ev->addr, ev->len, ev->stack, ev->phase, tid, ev->fn, 1,
				(uint8_t)ev->flags, 0, device, 0 };
	struct ckt_block *b = ckt_replay_heap_find(m, ev->addr);
	int rc;

	if (b) {
		/* still live: its free was lost or never recorded */
		r->st.inconsistencies++;
		rc = ckt_replay_cuda_account(r, b, -1, ev->ts);
		*b = nb;
	} else {
		if (ckt_replay_heap_reserve(m) < 0)
			return CKT_ENOMEM;
		ckt_replay_heap_put(m, &nb);
		r->st.cuda_blocks++;
		rc = 0;
	}
	return rc < 0 ? rc : ckt_replay_cuda_account(r, &nb, 1, ev->ts);
}

/* CUDA block b of map m is gone at ts. */
static int ckt_replay_cuda_gone(struct ckt_replay *r, struct ckt_heapmap *m, struct ckt_block *b,
				uint64_t ts)
{
	int rc = ckt_replay_cuda_account(r, b, -1, ts);
	r->st.cuda_blocks--;
	ckt_replay_heap_del(m, b);
	return rc;
}

/* Mapped range g goes; its handle's memory with it when the handle was released already. */
static int ckt_replay_cuda_unmap_one(struct ckt_replay *r, struct ckt_block *g, uint64_t ts)
{
	uint64_t handle = g->stack;
	r->cuda_maps_gen++;
	ckt_replay_heap_del(&r->cuda_maps, g);
	struct ckt_block *h = ckt_replay_heap_find(&r->cuda_handles, handle);
	if (!h || !h->maps)
		return 0;
	if (--h->maps == 0 && h->released)
		return ckt_replay_cuda_gone(r, &r->cuda_handles, h, ts);
	return 0;
}

/* A free's entry point (the kind it implies, ev->flags) frees only blocks of kinds it takes:
 * cuMemFree device, pool and managed memory, cuMemFreeAsync device and pool memory,
 * cuMemFreeHost pinned memory, cuMemHostUnregister a registration. The driver refuses the
 * others (cudaFree of a cudaMallocHost pointer) and the program keeps the memory; the record
 * was written before the call. (A VMM handle's release has a namespace of its own.) A block
 * of a stream-ordered allocator (fn) is pool memory whatever its kind: since tracer 0.2.41
 * one from a pool on the host is pinned, one from a managed pool managed; cuMemFree and
 * cuMemFreeAsync free it, cuMemFreeHost does not. */
static bool ckt_replay_cuda_frees(unsigned free_kind, const struct ckt_block *b)
{
	unsigned kind = b->cu_kind;
	if (b->fn == CKT_CU_MEM_ALLOC_ASYNC || b->fn == CKT_CU_MEM_ALLOC_ASYNC_PTSZ ||
	    b->fn == CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC || b->fn == CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ)
		return free_kind == CKT_CUDA_DEVICE || free_kind == CKT_CUDA_POOL;
	switch (free_kind) {
	case CKT_CUDA_DEVICE:
		return kind == CKT_CUDA_DEVICE || kind == CKT_CUDA_POOL || kind == CKT_CUDA_MANAGED;
	case CKT_CUDA_POOL:
		return kind == CKT_CUDA_DEVICE || kind == CKT_CUDA_POOL;
	default:
		return kind == free_kind;
	}
}

static int ckt_replay_cuda_free(struct ckt_replay *r, const struct ckt_ev *ev)
{
	bool release = ev->fn == CKT_CU_MEM_RELEASE;
	struct ckt_heapmap *m = release ? &r->cuda_handles : &r->cuda_blocks;
	struct ckt_block *b = ckt_replay_heap_find(m, ev->addr);
	/* unknown: allocated before tracing, or a free the driver refused */
	if (!b || (!release && !ckt_replay_cuda_frees(ev->flags, b)))
		return 0;
	if (b->maps) {
		/* a VMM handle released while ranges still map it: its memory lives until the
		 * last of them is unmapped (CUDA frees it then) */
		b->released = 1;
		return 0;
	}
	return ckt_replay_cuda_gone(r, m, b, ev->ts);
}

/* cuMemMap: the range [addr, addr + len) maps handle `stack`. A handle we never saw created (made
 * before tracing) is mapped all the same: its unmap then finds no handle. */
static int ckt_replay_cuda_map(struct ckt_replay *r, const struct ckt_ev *ev)
{
	struct ckt_block *old = ckt_replay_heap_find(&r->cuda_maps, ev->addr);
	if (old) /* the same start mapped twice: its unmap was lost; the new mapping wins */
		ckt_replay_cuda_unmap_one(r, old, ev->ts);
	struct ckt_block nm = { ev->addr, ev->len, ev->stack, 0, 0, 0, 1, 0, 0, 0, 0 };
	if (ckt_replay_heap_reserve(&r->cuda_maps) < 0)
		return CKT_ENOMEM;
	r->cuda_maps_gen++;
	ckt_replay_heap_put(&r->cuda_maps, &nm);
	struct ckt_block *h = ckt_replay_heap_find(&r->cuda_handles, ev->stack);
	if (h)
		h->maps++;
	return 0;
}

/* cuMemUnmap of [addr, addr + len): CUDA unmaps only whole mapped ranges that cover it exactly
 * (anything else it refuses, and the record was written before the call): so the ranges are
 * unmapped only when they tile it, one after another, from addr to its end. */
static int ckt_replay_cuda_unmap(struct ckt_replay *r, const struct ckt_ev *ev)
{
	uint64_t end = ev->addr + ev->len < ev->addr ? UINT64_MAX : ev->addr + ev->len, a = ev->addr;
	/* the same refused call again, nothing mapped or unmapped since: no second walk (a forged
	 * trace repeated one over 40,000 ranges: 32 s) */
	if (r->cuda_fail_gen == r->cuda_maps_gen && r->cuda_fail_addr == ev->addr && r->cuda_fail_end == end)
		return 0;
	while (a < end) {
		const struct ckt_block *m = ckt_replay_heap_find(&r->cuda_maps, a);
		if (!m || !m->size || m->size > end - a) {
			/* a range the driver refused, or one mapped before tracing */
			r->cuda_fail_gen = r->cuda_maps_gen;
			r->cuda_fail_addr = ev->addr;
			r->cuda_fail_end = end;
			return 0;
		}
		a += m->size;
	}
	int rc = 0;
	for (a = ev->addr; a < end && rc == 0;) {
		struct ckt_block *m = ckt_replay_heap_find(&r->cuda_maps, a);
		a += m->size;
		rc = ckt_replay_cuda_unmap_one(r, m, ev->ts);
	}
	return rc;
}

/* A heap event of thread th (kinds up to CKT_EV_HEAP_LAST). A `free` of the thread's latest
 * allocation is a temporary's (exact mode: in the default mode most allocations are not
 * recorded, so "nothing allocated since" is not known), unless it was live at the peak heap
 * (since 0.2.38: a buffer each thread held across the peak and freed next, a prover's columns
 * waiting on a barrier, counted as churn that costs no memory): when the peak rose while it
 * was live (its own allocation included), it was live at the current peak, and counts only
 * once the peak rises again (peak_temps). Cost: two stores per allocation, two compares per
 * release, on the thread's line the merge has at hand. */
static inline int ckt_replay_heap_event(struct ckt_replay *r, struct ckt_thread *th, const struct ckt_ev *ev)
{
	size_t ti = (size_t)(th - r->threads);
	if (ev->kind >= CKT_EV_FREE) {
		uint32_t temp = CKT_REPLAY_NO_TEMP;
		if (ev->kind == CKT_EV_FREE && ev->addr + 1 == th->last_alloc && !r->st.sample_r) {
			temp = (uint32_t)(ti << 1) | (th->last_alloc_rises != r->peak_rises);
			th->last_alloc = 0;
		}
		r->free_ti = ti; /* whose release (ckt_replay_post_free) */
		ckt_replay_heap_release(r, ev->addr, ev->ts, temp);
		r->free_ti = SIZE_MAX;
		return 0;
	}
	th->last_alloc = ev->addr + 1;
	th->last_alloc_rises = r->peak_rises;
	return ckt_replay_heap_alloc(r, ev, ti);
}

static __attribute__((noinline)) int ckt_replay_apply_other(struct ckt_replay *r, struct ckt_thread *th,
								const struct ckt_ev *ev)
{
	int rc = 0;

	if (__builtin_expect(!th->alive, 0) && ev->kind != CKT_EV_THREAD_EXIT && ev->kind != CKT_EV_RSS &&
	    ev->kind != CKT_EV_RSS_DETAIL) {
		/* a thread's first event, or a new thread with an old tid's number (RSS samples
		 * are the tracer's own thread's) */
		th->alive = true;
		r->st.threads_started++;
		if (++r->threads_alive > r->st.threads_at_once)
			r->st.threads_at_once = r->threads_alive;
	}
	switch (ev->kind) {
	case CKT_EV_ALLOC:
	case CKT_EV_REALLOC_ALLOC:
	case CKT_EV_FREE:
	case CKT_EV_REALLOC_FREE:
		rc = ckt_replay_heap_event(r, th, ev);
		break;
	case CKT_EV_MMAP: {
		struct ckt_range v = { ev->addr, ckt_replay_page_end(r, ev->addr, ev->len), ev->stack,
				       ev->phase, ev->fn, ev->flags & (CKT_MAP_ANON | CKT_MAP_SHARED),
				       ckt_replay_key(th), NULL };
		ckt_replay_allocated(r, ev->len);
		rc = ckt_replay_map(r, &v, ev->ts);
		ckt_replay_note_mmap(r, ev->ts);
		break;
	}
	case CKT_EV_MUNMAP:
		rc = ckt_replay_unmap(r, ev->addr, ckt_replay_page_end(r, ev->addr, ev->len), ev->ts);
		break;
	case CKT_EV_PROTECT:
	case CKT_EV_PROTECT_NONE:
		rc = ckt_replay_protect(r, ev->addr, ckt_replay_page_end(r, ev->addr, ev->len), ev->fn,
					ev->ts);
		ckt_replay_note_mmap(r, ev->ts);
		break;
	case CKT_EV_MREMAP_UNMAP: {
		uint64_t e = ckt_replay_page_end(r, ev->addr, ev->len);
		rc = ckt_replay_mremap_take(r, th, ev->addr, e, ckt_replay_page_end(r, ev->addr, ev->stack));
		if (rc == 0)
			rc = ckt_replay_unmap(r, ev->addr, e, ev->ts);
		break;
	}
	case CKT_EV_MREMAP_MAP:
		ckt_replay_allocated(r, ev->len);
		rc = ckt_replay_mremap_put(r, th, ev->addr, ckt_replay_page_end(r, ev->addr, ev->len), ev->ts);
		ckt_replay_note_mmap(r, ev->ts);
		break;
	case CKT_EV_RSS:
		ckt_replay_rss(r, ev);
		break;
	case CKT_EV_RSS_DETAIL:
		ckt_replay_rss_detail(r, ev, ckt_replay_xpop(th));
		break;
	case CKT_EV_CUDA_ALLOC:
		rc = ckt_replay_cuda_alloc(r, ev, ckt_replay_key(th), (uint32_t)ckt_replay_xpop(th));
		break;
	case CKT_EV_CUDA_FREE:
		rc = ckt_replay_cuda_free(r, ev);
		break;
	case CKT_EV_CUDA_MAP:
		rc = ckt_replay_cuda_map(r, ev);
		break;
	case CKT_EV_CUDA_UNMAP:
		rc = ckt_replay_cuda_unmap(r, ev);
		break;
	case CKT_EV_THREAD_EXIT:
		if (th->alive) {
			th->alive = false;
			r->threads_alive--;
		}
		/* before gen moves on: the key of the thread that ended. Not before tracer 0.2.33
		 * (thread_gens off), whose THREAD_EXIT could come after the next thread of its id
		 * had pushed phases of its own */
		if (th->pushed_phase && r->thread_gens) {
			th->pushed_phase = false;
			ckt_replay_obs_phase(r, ev->ts, ckt_replay_key(th), CKT_REPLAY_PHASE_GONE, 0);
		}
		if (r->thread_gens) {
			th->gen++; /* the next thread of this id is another (ckt_replay_key) */
			th->last_alloc = 0; /* and has allocated nothing yet: no temporary of it */
		}
		if (th->n_late && th->late_epoch == r->epochs[CKT_AT_PEAK_HEAP])
			th->late_unsure = true;
		th->n_late = 0;
		th->n_gone = 0;
		free(th->gone); /* (a trace of many short threads: none kept per id) */
		th->gone = NULL;
		if (th->agg_live) { /* its totals were flushed before it ended */
			th->agg_live = false;
			r->agg_live--;
		}
		break;
	case CKT_EV_AGG: {
		/* small blocks of the default mode: totals only, attributed by the samples */
		uint64_t flat0 = r->flat_until; /* before this record's own change */
		ckt_replay_heap_move(r, (int64_t)ev->addr, (int64_t)ev->len, ev->ts);
		ckt_replay_late_samples(r, th, ckt_replay_agg_late(r, ev, th->sent_agg ? th->agg_ts : 0, flat0));
		th->agg_ts = ev->ts;
		if (!th->sent_agg) {
			th->sent_agg = true;
			r->st.agg_threads++;
		}
		if (!th->agg_live) {
			th->agg_live = true;
			if (++r->agg_live > r->st.agg_threads_at_once)
				r->st.agg_threads_at_once = r->agg_live;
		}
		ckt_replay_note_heap(r, ev->ts);
		break;
	}
	case CKT_EV_PHASE:
		if (r->phase_after_peak == UINT64_MAX)
			r->phase_after_peak = ev->ts;
		if (ev->fn == CKT_PHASE_PUSH)
			th->pushed_phase = true;
		ckt_replay_obs_phase(r, ev->ts, ckt_replay_key(th), ev->fn, (uint32_t)ev->addr);
		break;
	}
	if (__builtin_expect(r->overflow, 0))
		return CKT_EFORMAT;
	return rc;
}

/* Applies one event. A heap event of a thread already counted alive (nearly all of them) goes
 * straight to the heap code: two predictable branches instead of the switch's indirect jump,
 * which the mix of allocations and frees kept mispredicting (a tenth of apply's time). */
static inline int ckt_replay_apply(struct ckt_replay *r, struct ckt_thread *th, const struct ckt_ev *ev)
{
	if (ev->ts > r->st.last_ts)
		r->st.last_ts = ev->ts;
	if (__builtin_expect(!th->alive || ev->kind > CKT_EV_HEAP_LAST, 0))
		return ckt_replay_apply_other(r, th, ev);
	int rc = ckt_replay_heap_event(r, th, ev);
	if (__builtin_expect(r->overflow, 0))
		return CKT_EFORMAT;
	return rc;
}

#define CKT_REPLAY_AHEAD 16
#define CKT_REPLAY_KEEP_CAP ((size_t)1 << 18)        /* entries: 10 MiB */
#define CKT_REPLAY_KEEP_BYTES ((size_t)48 << 20)
#define CKT_REPLAY_IDLE_BYTES ((size_t)16 << 20)

/* The queue of the first thread just ran empty: keeps or frees its buffer (the caller takes it
 * out of the merge: ckt_replay_top_gone). */
static void ckt_replay_retire(struct ckt_replay *r, struct ckt_thread *th)
{
	size_t bytes = ckt_replay_queue_bytes(th->cap);
	if (th->cap > 4096 && th->cap <= CKT_REPLAY_KEEP_CAP &&
	    (th->kept || r->kept_bytes + bytes <= CKT_REPLAY_KEEP_BYTES)) {
		/* A thread that filled a big queue in one window mostly does so in the next: keep
		 * it rather than regrow it from 4 entries (copies, and fresh pages to fault in:
		 * 8% of the run on the exact bench trace). Up to 10 MiB a queue: at 2.5 MiB the
		 * bench's four threads, whose queues reach 131,072 entries in a window, regrew
		 * them at every SYNC, 13,000 of the run's 23,800 page faults (0.2.47). Bounded in
		 * all: CKT_REPLAY_KEEP_BYTES, of the memory the queues take (a queue of 65,536
		 * entries, 2.5 MiB, takes 4 MiB in whole huge pages: counted by its entries, 19 of
		 * them held 76 MiB). */
		if (!th->kept) {
			th->kept = true;
			r->kept_bytes += bytes;
		}
	} else if (th->cap > 4096) {
		/* A burst made this queue big: give the memory back, but keep the largest such
		 * buffer as the one spare, so threads that take turns do not regrow (copying and
		 * faulting in fresh pages) each time. Memory: one queue more, at most. */
		if (!r->spare || r->spare_cap < th->cap) {
			ckt_util_big_free(r->spare, r->spare_cap * sizeof(*r->spare));
			r->spare = th->q;
			r->spare_cap = th->cap;
		} else {
			ckt_util_big_free(th->q, th->cap * sizeof(*th->q));
		}
		th->q = NULL;
		th->cap = 0;
	} else if (r->idle_bytes + th->cap * sizeof(*th->q) <= CKT_REPLAY_IDLE_BYTES) {
		/* a small queue stays for the thread's next window, within a bound: a trace of a
		 * million short-lived threads must not keep a million queues */
		th->idle = true;
		r->idle_bytes += th->cap * sizeof(*th->q);
	} else {
		ckt_util_big_free(th->q, th->cap * sizeof(*th->q));
		th->q = NULL;
		th->cap = 0;
	}
}

/* ckt_replay_set_prefetch's hint for this thread's allocations ahead (frees are left out: their
 * stack is known once their block is found). Cost: two loads of queue entries fetched already,
 * and a call per allocation ahead; only traces of thousands of stacks turn it on. */
static inline void ckt_replay_hint(struct ckt_replay *r, const struct ckt_thread *th, size_t mask)
{
	for (int stage = 0; stage < 2; stage++) {
		size_t d = (size_t)(2 - stage) * CKT_REPLAY_AHEAD;
		if (th->n <= d)
			continue;
		const struct ckt_ev *f = &th->q[(th->head + d) & mask];
		if (f->kind == CKT_EV_ALLOC || f->kind == CKT_EV_REALLOC_ALLOC)
			r->pf_fn(r->pf_ctx, f->stack, stage);
	}
}

/* Replays queued events in merge order: all of them, or those stamped before `limit`.
 * Threads run in bursts between two of their neighbours' events, so the top thread keeps
 * going without touching the heap while its next event still sorts before the runner-up
 * (ckt_replay_second); the order is fixed once per burst. */
static int ckt_replay_drain(struct ckt_replay *r, bool all, uint64_t limit)
{
	while (r->heap_n) {
		struct ckt_hent *top = &r->heap[0];
		if (!all && top->ts >= limit)
			break;
		size_t t = (size_t)(top->tie & 0xffffffffu);
		struct ckt_thread *th = &r->threads[t];
		struct ckt_hent next = { UINT64_MAX, UINT64_MAX }; /* the runner-up */
		size_t j = 0;
		if (r->heap_n > 1) {
			j = ckt_replay_second(r);
			next = r->heap[j];
		}
		if (!all && limit <= next.ts)
			next = (struct ckt_hent){ limit, 0 }; /* stop at the limit too */
		size_t mask = th->cap - 1;
		for (;;) {
			/* The live map is bigger than the caches, so a heap event's lookup is a miss;
			 * fetch the slot of this thread's event CKT_REPLAY_AHEAD places on now (other
			 * threads' events interleave, so that is further ahead still). */
			/* and the queue itself, further ahead, for the look-ahead above */
			__builtin_prefetch(&th->q[(th->head + 4 * CKT_REPLAY_AHEAD) & mask]);
			if (th->n > CKT_REPLAY_AHEAD && r->blocks.cap) {
				const struct ckt_ev *f = &th->q[(th->head + CKT_REPLAY_AHEAD) & mask];
				if (f->kind <= CKT_EV_HEAP_LAST && !(f->flags & CKT_EVF_PAIRED)) {
					size_t h = ckt_replay_live_home(&r->blocks, f->addr);
					__builtin_prefetch(&r->blocks.slots[h]);
					__builtin_prefetch(&r->blocks.slots[(h + 1) & (r->blocks.cap - 1)]);
				}
			}
			if (r->pf_on && *r->pf_on)
				ckt_replay_hint(r, th, mask);
			/* applied in place: nothing touches the queues until it returns */
			int rc = ckt_replay_apply(r, th, &th->q[th->head & mask]);
			if (rc < 0)
				return rc;
			th->head++;
			r->held--;
			if (--th->n == 0) {
				ckt_replay_retire(r, th);
				ckt_replay_top_gone(r, j);
				break;
			}
			const struct ckt_ev *ev = &th->q[th->head & mask];
			struct ckt_hent k = { ev->ts, ckt_replay_tie(ev, t) };
			if (!ckt_replay_before(&k, &next)) {
				ckt_replay_top_moved(r, k, j);
				break;
			}
		}
	}
	return 0;
}

/* Bounds the events held for time order. An event stamped long before it is written (a call
 * that ran long between its hook's stamp and its commit: a realloc copying gigabytes; or a
 * writer older than tracer 0.2.5, whose big munmaps held the horizon for their whole call)
 * keeps the SYNC horizon behind it, and every later event of every thread waits in the queues
 * (40 bytes each) until it comes: without a bound, the reader's memory grows with the event
 * rate times the delay, not with the live set. Past max_held queued events, the oldest are
 * replayed without waiting, down to half of it; the event that held them back then comes late
 * (counted, and the report says so). Checked at each SYNC, and before each record once past
 * twice the bound (a frame held 30 million events before its SYNC: 1.7 GB with --max-held
 * 1000). */
static int ckt_replay_bound(struct ckt_replay *r)
{
	/* a running count: summing the threads' queues at every SYNC took 55 s for a 60 KB
	 * trace of 20,000 threads and 2 M SYNC records */
	uint64_t held = r->held;
	if (held > r->st.max_held)
		r->st.max_held = held;
	if (held <= r->max_held)
		return 0;
	for (uint64_t n = held - r->max_held / 2; n && r->heap_n; n--) {
		size_t t = (size_t)(r->heap[0].tie & 0xffffffffu);
		struct ckt_thread *th = &r->threads[t];
		uint64_t ts = r->heap[0].ts;
		int rc = ckt_replay_apply(r, th, &th->q[th->head & (th->cap - 1)]);
		if (rc < 0)
			return rc;
		r->st.replayed_early++;
		if (ts > r->replayed_to)
			r->replayed_to = ts;
		th->head++;
		r->held--;
		size_t j = r->heap_n > 1 ? ckt_replay_second(r) : 0;
		if (--th->n == 0) {
			ckt_replay_retire(r, th);
			ckt_replay_top_gone(r, j);
		} else {
			const struct ckt_ev *ev = &th->q[th->head & (th->cap - 1)];
			ckt_replay_top_moved(r, (struct ckt_hent){ ev->ts, ckt_replay_tie(ev, t) }, j);
		}
	}
	return 0;
}

/* Records replayed at their timestamp (queued per thread and merged by time) and held to the
 * SYNC promise (THREAD_EXIT is queued too, but may come late by design: see ckt_format.h). */
static bool ckt_replay_is_timed(enum ckt_tag tag)
{
	return (tag >= CKT_TAG_ALLOC && tag <= CKT_TAG_RSS_DETAIL) || tag == CKT_TAG_PHASE ||
	       tag == CKT_TAG_CUDA_ALLOC || tag == CKT_TAG_CUDA_FREE || tag == CKT_TAG_AGG ||
	       tag == CKT_TAG_CUDA_MAP || tag == CKT_TAG_CUDA_UNMAP;
}

static int ckt_replay_feed_other(struct ckt_replay *r, const struct ckt_record *rec, struct ckt_error *err);
static int ckt_replay_take_run(struct ckt_replay *r, uint64_t tid, const struct ckt_ev *ev,
			       const uint64_t *aux, size_t n, struct ckt_error *err);

/* Said for a sampled ALLOC in a trace whose header says the exact mode. */
#define CKT_REPLAY_SAMPLED_IN_EXACT                                                              \
	"corrupt trace: a sampled allocation in a trace of the exact mode (its header's "         \
	"CUZKTRACE_SAMPLE is 0 or missing)"

/* Feeds one record in file order (ckt_replay_run). Events are queued per thread and replayed
 * in time order when a SYNC proves nothing earlier can still arrive. Inlined: ALLOC and FREE,
 * nearly every record, take no call of their own (the registers the switch below needs saved and restored per record were
 * a fifth of the instructions spent queueing). */
static inline __attribute__((always_inline)) int ckt_replay_feed_one(struct ckt_replay *r,
								      const struct ckt_record *rec,
								      struct ckt_error *err)
{
	struct ckt_replay_stats *st = &r->st;

	/* the bound holds between SYNCs too, at twice it: one frame can hold a hundred million
	 * events. Not at once: threads later in this frame may hold events older than the queued
	 * ones, so replaying early mid-frame makes more of them late than at the SYNC */
	if (__builtin_expect(r->held > 2 * r->max_held, 0)) {
		int rc = ckt_replay_bound(r);
		if (rc < 0)
			return ckt_replay_err(r, err, rc);
	}
	/* ALLOC and FREE are nearly every record: written straight into the queue, only the
	 * fields apply reads for their kind (FREE: ts, addr, kind) */
	if (__builtin_expect(rec->ts < r->replayed_to, 0) && ckt_replay_is_timed(rec->tag))
		st->late_events++;
	if (__builtin_expect(rec->tag == CKT_TAG_ALLOC || rec->tag == CKT_TAG_FREE, 1)) {
		size_t ti;
		struct ckt_ev *q = ckt_replay_slot(r, rec->tid, &ti);
		if (!q)
			return ckt_util_err(err, CKT_ENOMEM, "out of memory");
		q->ts = rec->ts;
		q->flags = 0;
		if (rec->tag == CKT_TAG_ALLOC) {
			st->counts[CKT_KIND_ALLOC]++;
			q->kind = CKT_EV_ALLOC;
			q->addr = rec->u.alloc.addr;
			q->len = rec->u.alloc.size;
			q->stack = rec->u.alloc.stack;
			q->phase = (uint32_t)rec->u.alloc.phase;
			q->fn = (uint8_t)rec->u.alloc.fn;
			if (__builtin_expect((q->fn & CKT_FN_SAMPLED) && !st->sample_r, 0))
				return ckt_util_err(err, CKT_EFORMAT, CKT_REPLAY_SAMPLED_IN_EXACT);
			ckt_replay_pair_note(r, ti, rec->u.alloc.seq);
		} else {
			st->counts[CKT_KIND_FREE]++;
			q->kind = CKT_EV_FREE;
			q->addr = rec->u.free.addr;
			if (rec->u.free.pair)
				ckt_replay_pair(r, ti, q, rec->u.free.pair);
		}
		ckt_replay_commit(r, ti, q);
		st->events++;
		return 0;
	}
	return ckt_replay_feed_other(r, rec, err);
}

/* Every record but ALLOC and FREE, after the checks of ckt_replay_feed_one. */
static __attribute__((noinline)) int ckt_replay_feed_other(struct ckt_replay *r, const struct ckt_record *rec,
							   struct ckt_error *err)
{
	struct ckt_replay_stats *st = &r->st;
	struct ckt_ev ev = { .ts = rec->ts };
	int rc = 0;

	if (rec->tag == CKT_REC_HEAP_RUN)
		return ckt_replay_take_run(r, rec->tid, rec->u.heap_run.ev, rec->u.heap_run.aux,
					   rec->u.heap_run.n, err);
	switch (rec->tag) {
	case CKT_TAG_REALLOC: {
		st->counts[CKT_KIND_REALLOC]++;
		size_t ti;
		struct ckt_ev *q;
		if (rec->u.realloc.old_addr) {
			if (!(q = ckt_replay_slot(r, rec->tid, &ti)))
				return ckt_util_err(err, CKT_ENOMEM, "out of memory");
			*q = ev;
			q->kind = CKT_EV_REALLOC_FREE;
			q->addr = rec->u.realloc.old_addr;
			if (rec->u.realloc.pair)
				ckt_replay_pair(r, ti, q, rec->u.realloc.pair);
			ckt_replay_commit(r, ti, q);
		}
		/* new == 0: realloc(p, 0) freed p and returned nothing */
		if (rec->u.realloc.new_addr) {
			if (!(q = ckt_replay_slot(r, rec->tid, &ti)))
				return ckt_util_err(err, CKT_ENOMEM, "out of memory");
			*q = ev;
			q->kind = CKT_EV_REALLOC_ALLOC;
			q->ts = rec->ts + rec->u.realloc.dafter;
			q->addr = rec->u.realloc.new_addr;
			q->len = rec->u.realloc.size;
			q->stack = rec->u.realloc.stack;
			q->phase = (uint32_t)rec->u.realloc.phase;
			q->fn = CKT_FN_REALLOC;
			ckt_replay_pair_note(r, ti, rec->u.realloc.seq);
			ckt_replay_commit(r, ti, q);
		}
		break;
	}
	case CKT_TAG_MMAP:
		st->counts[CKT_KIND_MMAP]++;
		ev.kind = CKT_EV_MMAP;
		ev.addr = rec->u.mmap.addr;
		ev.len = rec->u.mmap.len;
		ev.flags = (uint16_t)rec->u.mmap.flags;
		ev.fn = (uint8_t)(rec->u.mmap.prot & 7); /* PROT_READ | PROT_WRITE | PROT_EXEC */
		ev.stack = rec->u.mmap.stack;
		ev.phase = (uint32_t)rec->u.mmap.phase;
		rc = ckt_replay_push(r, rec->tid, &ev);
		break;
	case CKT_TAG_MPROTECT:
		st->counts[CKT_KIND_MPROTECT]++;
		ev.kind = rec->u.mprotect.prot & 7 ? CKT_EV_PROTECT : CKT_EV_PROTECT_NONE;
		ev.addr = rec->u.mprotect.addr;
		ev.len = rec->u.mprotect.len;
		ev.fn = (uint8_t)(rec->u.mprotect.prot & 7);
		rc = ckt_replay_push(r, rec->tid, &ev);
		break;
	case CKT_TAG_MUNMAP:
		st->counts[CKT_KIND_MUNMAP]++;
		ev.kind = CKT_EV_MUNMAP;
		ev.addr = rec->u.munmap.addr;
		ev.len = rec->u.munmap.len;
		rc = ckt_replay_push(r, rec->tid, &ev);
		break;
	case CKT_TAG_MREMAP:
		st->counts[CKT_KIND_MREMAP]++;
		ev.kind = CKT_EV_MREMAP_UNMAP;
		ev.addr = rec->u.mremap.old_addr;
		ev.len = rec->u.mremap.old_len;
		ev.stack = rec->u.mremap.new_len; /* for a release of nothing: the bytes it copies */
		rc = ckt_replay_push(r, rec->tid, &ev);
		if (rc == 0) {
			ev.kind = CKT_EV_MREMAP_MAP;
			ev.ts = rec->ts + rec->u.mremap.dafter;
			ev.addr = rec->u.mremap.new_addr;
			ev.len = rec->u.mremap.new_len;
			rc = ckt_replay_push(r, rec->tid, &ev);
		}
		break;
	case CKT_TAG_RSS:
		st->counts[CKT_KIND_RSS]++;
		ev.kind = CKT_EV_RSS;
		ev.len = rec->u.rss.rss;
		rc = ckt_replay_push(r, rec->tid, &ev);
		break;
	case CKT_TAG_RSS_DETAIL:
		st->counts[CKT_KIND_RSS_DETAIL]++;
		ev.kind = CKT_EV_RSS_DETAIL;
		ev.len = rec->u.rss_detail.hwm;
		ev.addr = rec->u.rss_detail.anon;
		ev.stack = rec->u.rss_detail.file;
		rc = ckt_replay_push_x(r, rec->tid, &ev, rec->u.rss_detail.shmem);
		break;
	case CKT_TAG_SYNC:
		/* Everything stamped before the previous horizon has been read by now (format
		 * contract); this SYNC's own horizon only becomes safe at the next one. */
		rc = ckt_replay_drain(r, false, r->horizon);
		if (r->replayed_to < r->horizon)
			r->replayed_to = r->horizon;
		if (rc == 0)
			rc = ckt_replay_bound(r);
		if (rec->ts > r->horizon)
			r->horizon = rec->ts;
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_END:
		st->ended = true;
		st->end_ts = rec->ts;
		st->end_reason = rec->u.end.reason;
		st->end_events = rec->u.end.events;
		r->lost_end = rec->u.end.lost;
		return 0;
	case CKT_TAG_LIMIT: {
		/* once per kind from the tracer; kind 0 means nothing; the earliest counts */
		uint64_t *at = &st->limit_at[rec->u.limit.kind];
		if (rec->u.limit.kind && (!*at || rec->ts < *at - 1))
			*at = rec->ts == UINT64_MAX ? UINT64_MAX : rec->ts + 1;
		return 0;
	}
	case CKT_TAG_WAITED:
		/* running totals: the largest counts (the last, in a trace in order) */
		if (rec->u.waited.ns > st->wait_ns)
			st->wait_ns = rec->u.waited.ns;
		if (rec->u.waited.waits > st->waits)
			st->waits = rec->u.waited.waits;
		return 0;
	case CKT_TAG_LOST:
		/* held at 2^64 - 1: two forged counts of 2^63 summed to 0, a trace that lost nothing */
		if (__builtin_add_overflow(r->lost_sum, rec->u.lost.count, &r->lost_sum))
			r->lost_sum = UINT64_MAX;
		return 0;
	case CKT_TAG_CUDA_ALLOC:
		st->counts[CKT_KIND_CUDA_ALLOC]++;
		ev.kind = CKT_EV_CUDA_ALLOC;
		ev.addr = rec->u.cuda_alloc.addr;
		ev.len = rec->u.cuda_alloc.size;
		ev.stack = rec->u.cuda_alloc.stack;
		ev.phase = (uint32_t)rec->u.cuda_alloc.phase;
		ev.flags = (uint16_t)rec->u.cuda_alloc.kind;
		ev.fn = (uint8_t)rec->u.cuda_alloc.fn;
		rc = ckt_replay_push_x(r, rec->tid, &ev,
				       rec->u.cuda_alloc.device > CKT_CUDA_NO_DEVICE ? CKT_CUDA_NO_DEVICE
										     : rec->u.cuda_alloc.device);
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_CUDA_FREE:
		st->counts[CKT_KIND_CUDA_FREE]++;
		ev.kind = CKT_EV_CUDA_FREE;
		ev.addr = rec->u.cuda_free.addr;
		ev.flags = (uint16_t)rec->u.cuda_free.kind;
		ev.fn = (uint8_t)rec->u.cuda_free.fn;
		rc = ckt_replay_push(r, rec->tid, &ev);
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_THREAD_EXIT: {
		ev.kind = CKT_EV_THREAD_EXIT;
		rc = ckt_replay_push(r, rec->u.thread_exit.tid, &ev);
		if (rc < 0)
			return ckt_replay_err(r, err, rc);
		/* the thread of this id that THREAD_NAME records read from now on name (a late end
		 * of a tracer before 0.2.33 counts the same: its names and its events agree) */
		long ti = r->thread_gens ? ckt_replay_thread(r, rec->u.thread_exit.tid) : -1;
		if (ti >= 0) {
			struct ckt_thread *th = &r->threads[ti];
			uint32_t i = th->feed_gen;
			if (i < CKT_REPLAY_EXITS_KEPT) {
				th->exit_ts[i] = rec->ts;
			} else {
				i -= CKT_REPLAY_EXITS_KEPT;
				if (i >= th->exit_more_cap) {
					uint64_t *m = ckt_util_grow(th->exit_more, &th->exit_more_cap, sizeof(*m), 4);
					if (!m)
						return ckt_replay_err(r, err, CKT_ENOMEM);
					th->exit_more = m;
				}
				th->exit_more[i] = rec->ts;
			}
			th->feed_gen++;
		}
		return 0;
	}
	case CKT_TAG_CUDA_MAP:
	case CKT_TAG_CUDA_UNMAP:
		st->counts[rec->tag == CKT_TAG_CUDA_MAP ? CKT_KIND_CUDA_MAP : CKT_KIND_CUDA_UNMAP]++;
		ev.kind = rec->tag == CKT_TAG_CUDA_MAP ? CKT_EV_CUDA_MAP : CKT_EV_CUDA_UNMAP;
		ev.addr = rec->u.cuda_map.addr;
		ev.len = rec->u.cuda_map.size;
		ev.stack = rec->u.cuda_map.handle;
		rc = ckt_replay_push(r, rec->tid, &ev);
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_AGG:
		if (!st->sample_r)
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt trace: running totals (AGG) in a trace of the exact mode "
					    "(its header's CUZKTRACE_SAMPLE is 0 or missing)");
		st->counts[CKT_KIND_AGG]++;
		ev.kind = CKT_EV_AGG;
		ev.addr = (uint64_t)rec->u.agg.bytes;
		ev.len = (uint64_t)rec->u.agg.blocks;
		ev.stack = rec->u.agg.since;
		rc = ckt_replay_push(r, rec->tid, &ev);
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_PHASE:
		ev.kind = CKT_EV_PHASE;
		ev.fn = (uint8_t)rec->u.phase.op;
		ev.addr = rec->u.phase.id;
		rc = ckt_replay_push(r, rec->tid, &ev);
		return rc < 0 ? ckt_replay_err(r, err, rc) : 0;
	case CKT_TAG_CUDA_DEVICE:
		rc = ckt_replay_cuda_describe(r, rec);
		if (rc < 0)
			return ckt_replay_err(r, err, rc);
		__attribute__((fallthrough)); /* observers see it too */
	default:
		/* STACK, MODULE, THREAD_NAME, PHASE_DEF, NOTE: for the observers */
		if (rec->tag == CKT_TAG_STACK) { /* what the tracer holds for it (see replay.h) */
			st->tracer_stack_bytes += CKT_TRACER_BYTES_PER_STACK + 8 * rec->u.stack.nframes;
			bool small = r->stack_small && st->stack_records++ < CKT_TRACER_STACK_SMALL_MAX;
			uint64_t bytes = small ? CKT_TRACER_STACK_SMALL_BYTES : CKT_TRACER_STACK_TABLE_BYTES;
			double pages = (double)(bytes / r->page_size),
			       *touched = small ? &st->stack_small_touched : &st->stack_table_touched;
			*touched += (1.0 - *touched) / (pages >= 1 ? pages : 1);
			st->tracer_stack_table_bytes =
				(uint64_t)(st->stack_table_touched * (double)CKT_TRACER_STACK_TABLE_BYTES +
					   st->stack_small_touched * (double)CKT_TRACER_STACK_SMALL_BYTES);
		}
		ckt_replay_obs_flush(r);
		for (size_t i = 0; i < r->n_obs; i++)
			if (r->obs[i].record)
				r->obs[i].record(r->obs[i].ctx, rec);
		return 0;
	}
	if (rc < 0)
		return ckt_replay_err(r, err, rc);
	st->events++;
	return 0;
}

/* The default mode: running totals sent late count at the peak RSS sample when they were made
 * before it (ckt_replay_agg_late), and at the peak heap only when made before that, so the
 * heap shown at the peak RSS could exceed the peak heap (a worker's 60 KB made before the peak
 * heap, within the clock's tick of it, sent after both: the report read a peak heap of
 * 16778528 bytes and 16837528 "heap then" at the peak RSS, a later moment). The heap was at
 * least that much at the peak RSS sample, so that moment is the peak heap's: its time, its
 * bytes, and the counters observers kept for it (ckt_moment_of). */
static void ckt_replay_heap_at_rss(struct ckt_replay *r)
{
	struct ckt_replay_stats *st = &r->st;
	if (!st->peak_rss.seen || st->peak_rss.heap_bytes <= st->peak_heap.bytes)
		return;
	st->peak_heap.bytes = st->peak_rss.heap_bytes;
	st->peak_heap.ts = st->peak_rss.ts;
	st->agg_late_kept = r->late_kept_rss;
	st->late_samples_at_peak = 0; /* (counted at the replay's own top, which this is not) */
	st->late_frees_at_peak = 0;
	st->peak_heap_at_rss = true;
	r->epochs[CKT_EPOCHS_ALIAS + CKT_AT_PEAK_HEAP] = CKT_AT_PEAK_RSS;
}

int ckt_replay_finish(struct ckt_replay *r, struct ckt_error *err)
{
	struct ckt_replay_stats *st = &r->st;
	/* the events before the last SYNC's horizon, which the trace holds whole, then the rest:
	 * the same order as one drain, the inconsistencies among the rest counted apart */
	int rc = ckt_replay_drain(r, false, r->horizon);
	uint64_t before = st->inconsistencies;
	if (rc == 0)
		rc = ckt_replay_drain(r, true, 0);
	if (rc < 0)
		return ckt_replay_err(r, err, rc);
	st->inconsistencies_after_sync = st->inconsistencies - before;
	st->last_sync_ns = r->horizon;
	ckt_replay_obs_flush(r);
	ckt_replay_heap_at_rss(r);
	st->lost = r->lost_sum > r->lost_end ? r->lost_sum : r->lost_end;
	st->threads = r->n_threads;
	st->queue_bytes = ckt_replay_queue_bytes(r->spare_cap);
	for (size_t i = 0; i < r->n_threads; i++)
		st->queue_bytes += ckt_replay_queue_bytes(r->threads[i].cap);
	st->end_before_events = st->ended && st->end_ts < st->last_ts;
	uint64_t last = st->last_ts > r->horizon ? st->last_ts : r->horizon;
	st->end_far_after = st->ended && st->end_ts > last && st->end_ts - last > CKT_REPLAY_END_LATE_NS;
	st->duration_ns = !st->ended || st->end_before_events ? st->last_ts : st->end_far_after ? last : st->end_ts;
	return 0;
}

int ckt_replay_feed(struct ckt_replay *r, const struct ckt_record *recs, size_t n, struct ckt_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = ckt_replay_feed_one(r, &recs[i], err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int ckt_replay_end(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err)
{
	r->st.truncated = ckt_decode_truncated(d);
	return ckt_replay_finish(r, err);
}

/* Room for a run of heap events at the end of th's queue: up to the ring's end (the rest goes
 * in the next run), at most CKT_REPLAY_RUN_MAX, and no further than one past twice the bound of
 * held events (ckt_replay_feed_one checks it before every record: the run stops before the
 * record that would pass it). 0 when the queue is full (or has no ring yet). */
#define CKT_REPLAY_RUN_MAX 256
static inline size_t ckt_replay_run_room(const struct ckt_replay *r, const struct ckt_thread *th)
{
	size_t tail = (th->head + th->n) & (th->cap - 1);
	size_t max = th->cap - th->n;
	if (max > th->cap - tail)
		max = th->cap - tail;
	if (max > CKT_REPLAY_RUN_MAX)
		max = CKT_REPLAY_RUN_MAX;
	if (max > 2 * r->max_held - r->held + 1)
		max = (size_t)(2 * r->max_held - r->held + 1);
	return th->cap ? max : 0;
}

/* The k ALLOC and FREE events just written at q, the end of thread ti's queue (aux: an
 * allocation's seq or a release's pair), taken as ckt_replay_feed_one and ckt_replay_commit
 * take each record; the counts, which nothing here reads, are added once. Returns how many
 * are queued: k, or those before a sampled allocation of an exact trace (the caller says
 * so). */
static inline __attribute__((always_inline)) size_t ckt_replay_queue_run(struct ckt_replay *r, size_t ti,
									  struct ckt_ev *q, const uint64_t *aux,
									  size_t k)
{
	struct ckt_replay_stats *st = &r->st;
	struct ckt_thread *th = &r->threads[ti];
	size_t pos = th->head + th->n, allocs = 0, i;
	uint64_t last_ts = th->last_ts, replayed_to = r->replayed_to;
	for (i = 0; i < k; i++) {
		struct ckt_ev *ev = &q[i];
		if (__builtin_expect(ev->ts < replayed_to, 0))
			st->late_events++;
		if (ev->kind == CKT_EV_ALLOC) {
			allocs++;
			if (__builtin_expect((ev->fn & CKT_FN_SAMPLED) && !st->sample_r, 0))
				break;
			if (aux[i]) { /* ckt_replay_pair_note */
				size_t a = aux[i] % CKT_AM_RECENT;
				r->pairs[a].seq = aux[i];
				r->pairs[a].pos = pos + i;
				r->pairs[a].ti = ti;
			}
		} else if (aux[i]) {
			ckt_replay_pair(r, ti, ev, aux[i]);
		}
		if (__builtin_expect(ev->ts < last_ts, 0))
			st->backward_events++;
		else
			last_ts = ev->ts;
	}
	/* i events are queued (k, or the one before a sampled allocation of an exact trace) */
	st->counts[CKT_KIND_ALLOC] += allocs;
	st->counts[CKT_KIND_FREE] += i + (i < k) - allocs;
	st->events += i;
	r->held += i;
	th->last_ts = last_ts;
	if (i && th->n == 0) {
		if (th->idle) {
			th->idle = false;
			r->idle_bytes -= th->cap * sizeof(struct ckt_ev);
		}
		ckt_replay_join(r, (struct ckt_hent){ q->ts, ckt_replay_tie(q, ti) });
	}
	th->n += i;
	return i;
}

/* The runs of ALLOC and FREE records at d's position, decoded straight into their thread's queue
 * (ckt_decode_heap) and then taken as ckt_replay_feed_one takes them: no struct ckt_record in
 * between, and the thread, the room in its queue and the bound of held events looked at once
 * per run instead of per record (the copy and those checks were 87 instructions of the 590 an
 * event on the benchmark's exact trace). Returns 0 once the next record is of another kind, a
 * thread not seen yet or one whose queue is full (ckt_replay_feed_one takes it, and makes the
 * room), else the first error, the decoder's after the records before it. */
static int ckt_replay_feed_heap(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err)
{
	uint64_t aux[CKT_REPLAY_RUN_MAX];
	uint64_t tid;

	while (ckt_decode_heap_next(d, &tid)) {
		if (__builtin_expect(r->held > 2 * r->max_held, 0))
			return 0;
		size_t ti = r->last_ti - 1;
		if (__builtin_expect(!r->last_ti || r->threads[ti].tid != tid, 0)) {
			long t = ckt_replay_thread_find(r, tid);
			if (t < 0)
				return 0;
			ti = (size_t)t;
			r->last_ti = ti + 1;
		}
		struct ckt_thread *th = &r->threads[ti];
		size_t max = ckt_replay_run_room(r, th);
		if (!max)
			return 0;
		struct ckt_ev *q = &th->q[(th->head + th->n) & (th->cap - 1)];
		int drc;
		size_t k = ckt_decode_heap(d, q, aux, max, &drc, err);
		if (ckt_replay_queue_run(r, ti, q, aux, k) < k)
			return ckt_util_err(err, CKT_EFORMAT, CKT_REPLAY_SAMPLED_IN_EXACT);
		if (drc < 0)
			return drc;
		if (k < max)
			return 0; /* another kind of record, or the frame's end */
	}
	return 0;
}

/* A run of n ALLOC and FREE events of thread tid that the decoder thread made (CKT_REC_HEAP_RUN,
 * readahead.c): copied into the queue by pieces that fit, each taken as ckt_replay_feed_heap
 * takes a run, and before each piece what ckt_replay_feed_one does before a record (the bound
 * of held events past twice it, a full queue grown, a new thread made), so that every figure is
 * that of the records fed one by one. */
static int ckt_replay_take_run(struct ckt_replay *r, uint64_t tid, const struct ckt_ev *ev,
			       const uint64_t *aux, size_t n, struct ckt_error *err)
{
	while (n) {
		if (__builtin_expect(r->held > 2 * r->max_held, 0)) {
			int rc = ckt_replay_bound(r);
			if (rc < 0)
				return ckt_replay_err(r, err, rc);
		}
		/* the thread (made at its first run), its queue grown when full */
		size_t ti;
		if (!ckt_replay_slot(r, tid, &ti))
			return ckt_util_err(err, CKT_ENOMEM, "out of memory");
		/* room for one at least: the queue is not full and held is within twice the bound */
		struct ckt_thread *th = &r->threads[ti];
		size_t k = ckt_replay_run_room(r, th);
		if (k > n)
			k = n;
		struct ckt_ev *q = &th->q[(th->head + th->n) & (th->cap - 1)];
		memcpy(q, ev, k * sizeof(*q));
		if (ckt_replay_queue_run(r, ti, q, aux, k) < k)
			return ckt_util_err(err, CKT_EFORMAT, CKT_REPLAY_SAMPLED_IN_EXACT);
		ev += k;
		aux += k;
		n -= k;
	}
	return 0;
}

int ckt_replay_run(struct ckt_decoder *d, struct ckt_replay *r, struct ckt_error *err)
{
	struct ckt_record rec;
	size_t n;
	int rc;

	do {
		int frc = ckt_replay_feed_heap(d, r, err);
		if (frc < 0)
			return frc;
		/* the one record a run leaves: another kind, a thread's first, a full queue, the bound */
		rc = ckt_decode_batch(d, &rec, 1, &n, err);
		frc = ckt_replay_feed(r, &rec, n, err);
		if (frc < 0)
			return frc;
	} while (rc > 0);
	if (rc < 0)
		return rc;
	return ckt_replay_end(d, r, err);
}
