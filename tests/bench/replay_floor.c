/* replay_floor.c: what the least replay that finds the peak heap and who holds it costs per
 * event on one core, with decoding and merging already done, for `make bench`.
 * Usage: replay_floor TRACE
 * The heap records of TRACE are decoded (reader/decode.c) into one array in time order, then
 * replayed with no decoder, no merge, no phases, mappings, RSS or report: a live-block table
 * (open addressing, 24-byte slots, kept at most half full, on huge pages where the kernel gives
 * them), a counter set per call stack (live bytes, allocations, bytes allocated) and the
 * running total and its peak (no copy of the counters at a new peak: the report's way of
 * keeping who holds it costs more, so this is a bound from below). Prints two lines, each the
 * best of 3 passes:
 *   table  <seconds> <events> <peak>          every block goes through the table
 *   paired <seconds> <events> <peak> <paired>  a free the trace pairs with its thread's
 *                                              allocation (the address model's recent list)
 *                                              carries that block's size and stack, so neither
 *                                              touches the table: what a format whose writer
 *                                              pairs them would allow
 * events counts records as the report does (a realloc is one). The report's time minus the
 * decode floor (decode_floor) and this floor is what everything else costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "decode.h"

enum { FL_ALLOC, FL_FREE, FL_PAIRED_ALLOC, FL_PAIRED_FREE };

struct fl_ev {
	uint64_t ts, addr, size, order;
	uint32_t site, tid;
	uint8_t kind;
};

struct fl_slot {
	uint64_t addr, size;
	uint32_t site, pad;
};

struct fl_site {
	int64_t live;
	uint64_t allocs, bytes, pad;
};

/* a small map from 64-bit ids (stacks, threads) to dense indexes */
struct fl_ids {
	uint64_t *key;
	uint32_t *val;
	size_t cap, n;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p) {
		fprintf(stderr, "replay_floor: out of memory\n");
		exit(1);
	}
	return p;
}

static uint32_t fl_id(struct fl_ids *m, uint64_t id)
{
	if (2 * (m->n + 1) > m->cap) {
		struct fl_ids g = { xmalloc(2 * m->cap * 8), xmalloc(2 * m->cap * 4), 2 * m->cap, 0 };
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t h = (size_t)(m->key[i] * 0x9e3779b97f4a7c15ull) & (g.cap - 1);
				while (g.key[h])
					h = (h + 1) & (g.cap - 1);
				g.key[h] = m->key[i];
				g.val[h] = m->val[i];
			}
		g.n = m->n;
		free(m->key);
		free(m->val);
		*m = g;
	}
	size_t h = (size_t)((id + 1) * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
	while (m->key[h] && m->key[h] != id + 1)
		h = (h + 1) & (m->cap - 1);
	if (!m->key[h]) {
		m->key[h] = id + 1;
		m->val[h] = (uint32_t)m->n++;
	}
	return m->val[h];
}

static struct fl_ev *evs;
static size_t n_ev, cap_ev;

static struct fl_ev *fl_push(void)
{
	if (n_ev == cap_ev) {
		cap_ev = cap_ev ? 2 * cap_ev : (size_t)1 << 20;
		evs = realloc(evs, cap_ev * sizeof(*evs));
		if (!evs) {
			fprintf(stderr, "replay_floor: out of memory\n");
			exit(1);
		}
	}
	evs[n_ev].order = n_ev;
	return &evs[n_ev++];
}

static int fl_before(const void *a, const void *b)
{
	const struct fl_ev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The recent allocations of each thread by seq, to find the one a paired free names. */
#define FL_RECENT 64
struct fl_recent {
	uint64_t seq[FL_RECENT];
	size_t at[FL_RECENT];
	unsigned n;
};

static struct fl_recent *recent;
static size_t n_recent;

static struct fl_recent *fl_thread(uint32_t t)
{
	if (t >= n_recent) {
		size_t n = 2 * (size_t)t + 16;
		recent = realloc(recent, n * sizeof(*recent));
		if (!recent) {
			fprintf(stderr, "replay_floor: out of memory\n");
			exit(1);
		}
		memset(recent + n_recent, 0, (n - n_recent) * sizeof(*recent));
		n_recent = n;
	}
	return &recent[t];
}

static void fl_alloc(uint64_t ts, uint32_t t, uint64_t addr, uint64_t size, uint32_t site, uint64_t seq)
{
	struct fl_ev *e = fl_push();
	*e = (struct fl_ev){ ts, addr, size, e->order, site, t, FL_ALLOC };
	struct fl_recent *r = fl_thread(t);
	r->seq[r->n % FL_RECENT] = seq;
	r->at[r->n % FL_RECENT] = n_ev - 1;
	r->n++;
}

static void fl_free(uint64_t ts, uint32_t t, uint64_t addr, uint64_t pair, size_t *paired)
{
	struct fl_ev *e = fl_push();
	*e = (struct fl_ev){ ts, addr, 0, e->order, 0, t, FL_FREE };
	struct fl_recent *r = fl_thread(t);
	for (unsigned k = 0; pair && k < FL_RECENT && k < r->n; k++) {
		unsigned i = (r->n - 1 - k) % FL_RECENT;
		if (r->seq[i] == pair) {
			struct fl_ev *a = &evs[r->at[i]];
			a->kind = FL_PAIRED_ALLOC;
			e->kind = FL_PAIRED_FREE;
			e->size = a->size;
			e->site = a->site;
			r->seq[i] = 0;
			++*paired;
			break;
		}
	}
}

static struct fl_slot *tab;
static size_t tmask;
static struct fl_site *sites;
static int64_t total, peak;

static inline size_t fl_home(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & tmask;
}

/* an allocation's bytes: its stack's counters, the total and its peak */
static inline void fl_added(const struct fl_ev *e)
{
	struct fl_site *s = &sites[e->site];
	s->live += (int64_t)e->size;
	s->allocs++;
	s->bytes += e->size;
	total += (int64_t)e->size;
	if (total > peak)
		peak = total;
}

/* per event: a hash, one or two cache lines of the table (prefetched by nothing), one of the
 * stack's counters; a free shifts back the slots after the one it empties. A paired event
 * (paired passes) touches the counters only. */
static inline void fl_apply(const struct fl_ev *e, bool paired)
{
	bool alloc = e->kind == FL_ALLOC || e->kind == FL_PAIRED_ALLOC;
	if (paired && e->kind >= FL_PAIRED_ALLOC) {
		if (alloc) {
			fl_added(e);
		} else {
			sites[e->site].live -= (int64_t)e->size;
			total -= (int64_t)e->size;
		}
		return;
	}
	size_t h = fl_home(e->addr);
	if (alloc) {
		while (tab[h].addr)
			h = (h + 1) & tmask;
		tab[h] = (struct fl_slot){ e->addr, e->size, e->site, 0 };
		fl_added(e);
		return;
	}
	while (tab[h].addr && tab[h].addr != e->addr)
		h = (h + 1) & tmask;
	if (!tab[h].addr)
		return; /* a free of a block the trace never had */
	sites[tab[h].site].live -= (int64_t)tab[h].size;
	total -= (int64_t)tab[h].size;
	size_t i = h, j = h;
	for (;;) { /* backward-shift deletion: no tombstones */
		j = (j + 1) & tmask;
		if (!tab[j].addr)
			break;
		size_t k = fl_home(tab[j].addr);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			tab[i] = tab[j];
			i = j;
		}
	}
	tab[i].addr = 0;
}

static double fl_pass(size_t tcap, size_t n_sites, bool paired)
{
	size_t bytes = tcap * sizeof(*tab);
	tab = aligned_alloc((size_t)2 << 20, (bytes + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1));
	sites = xmalloc((n_sites + 1) * sizeof(*sites));
	if (!tab) {
		fprintf(stderr, "replay_floor: out of memory\n");
		exit(1);
	}
	(void)madvise(tab, bytes, MADV_HUGEPAGE);
	memset(tab, 0, bytes);
	total = peak = 0;
	double t = now();
	for (size_t i = 0; i < n_ev; i++)
		fl_apply(&evs[i], paired);
	t = now() - t;
	free(tab);
	free(sites);
	return t;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: replay_floor TRACE\n");
		return 2;
	}
	struct ckt_decoder *d;
	struct ckt_error err;
	struct ckt_record rec;
	struct fl_ids stacks = { xmalloc(1024 * 8), xmalloc(1024 * 4), 1024, 0 };
	struct fl_ids tids = { xmalloc(64 * 8), xmalloc(64 * 4), 64, 0 };
	size_t records = 0, paired = 0;
	int rc;
	if (ckt_decode_open(argv[1], &d, &err) < 0) {
		fprintf(stderr, "replay_floor: %s\n", err.msg);
		return 1;
	}
	while ((rc = ckt_decode_next(d, &rec, &err)) > 0) {
		if (rec.tag == CKT_TAG_ALLOC) {
			fl_alloc(rec.ts, fl_id(&tids, rec.tid), rec.u.alloc.addr, rec.u.alloc.size,
				 fl_id(&stacks, rec.u.alloc.stack), rec.u.alloc.seq);
		} else if (rec.tag == CKT_TAG_FREE) {
			fl_free(rec.ts, fl_id(&tids, rec.tid), rec.u.free.addr, rec.u.free.pair, &paired);
		} else if (rec.tag == CKT_TAG_REALLOC) {
			uint32_t t = fl_id(&tids, rec.tid);
			if (rec.u.realloc.old_addr)
				fl_free(rec.ts, t, rec.u.realloc.old_addr, rec.u.realloc.pair, &paired);
			fl_alloc(rec.ts + rec.u.realloc.dafter, t, rec.u.realloc.new_addr, rec.u.realloc.size,
				 fl_id(&stacks, rec.u.realloc.stack), rec.u.realloc.seq);
		} else {
			continue;
		}
		records++;
	}
	if (rc < 0) {
		fprintf(stderr, "replay_floor: %s\n", err.msg);
		return 1;
	}
	ckt_decode_close(d);
	qsort(evs, n_ev, sizeof(*evs), fl_before);
	long live = 0, most = 0;
	for (size_t i = 0; i < n_ev; i++) {
		live += evs[i].kind == FL_ALLOC || evs[i].kind == FL_PAIRED_ALLOC ? 1 : -1;
		most = live > most ? live : most;
	}
	size_t tcap = 1024;
	while (tcap < 2 * (size_t)most)
		tcap *= 2;
	tmask = tcap - 1;
	double best[2] = { 1e30, 1e30 };
	int64_t peaks[2] = { 0, 0 };
	for (int i = 0; i < 6; i++) {
		double t = fl_pass(tcap, stacks.n, i & 1);
		if (t < best[i & 1])
			best[i & 1] = t;
		peaks[i & 1] = peak;
	}
	printf("table %.4f %zu %lld\npaired %.4f %zu %lld %zu\n", best[0], records, (long long)peaks[0], best[1],
	       records, (long long)peaks[1], paired);
	return 0;
}
