/* sample.c: the rare paths of the default (sampling) mode; the fast paths are inline in
 * ckt.h and hooks_malloc.c. Owns the per-thread sampling gaps, AGG flushes and the set of live
 * sampled pointers. Sampling maths as in jemalloc and tcmalloc: gaps between samples are
 * exponential with mean R bytes, so an allocation of n bytes is sampled with probability
 * 1 - exp(-n/R) and the reader weights it by the inverse. */
#include <errno.h>
#include "ckt.h"

#include <stddef.h>

#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t ckt_sample_r;

/* ---- the filter (ckt.h) ----
 * Two levels, each a bitmap and a count of live samples per bit: level 0 (static, 2^18 bits)
 * counts every live sample from start to end, so a fast path that read ckt_filter_state before
 * the switch is still right; level 1 (2^22 bits, mapped by the writer) counts the samples of
 * generation 1. A set entry is the pointer | its generation (bit 0; sampled pointers are even:
 * ckt_sample_take skips an odd one). Growing (ckt_sample_maintain, the writer thread):
 *   1. level 1 is mapped and grow_state set to GROWING: from then on new entries are inserted
 *      as generation 1, counted in level 1 before they enter the set;
 *   2. every generation-0 entry is moved to generation 1 by a CAS on its slot, counted in
 *      level 1 before the CAS and uncounted if the CAS fails. An entry inserted as
 *      generation 0 by a thread that read the state before step 1 is moved by that thread
 *      itself if it sees GROWING after its insert (else the scan, which began after the
 *      state changed, sees the entry): the CAS on the slot decides who moves it, so it is
 *      counted once. A release CASes the entry to a tombstone (retrying when the scan moved
 *      it meanwhile) and uncounts it at the level(s) of the generation it took away;
 *   3. every live entry is now generation 1, so level 1's bitmap holds a bit for each: the
 *      fast path switches to it (ckt_filter_state, release), and grow_state becomes GROWN.
 * Counts are 16-bit: 65536 live samples on one bit would need far more than the set holds. */
/* read by every small free; its neighbours on its cache line are written rarely (ckt_sample_r
 * once, set_full once, sets[] when a table is added) */
_Alignas(64) _Atomic uint64_t ckt_filter_state;
static _Alignas(64) _Atomic uint64_t filter0[(1u << CKT_FILTER_BITS0) / 64];
static _Atomic uint16_t count0[1u << CKT_FILTER_BITS0];
static _Atomic uint16_t clearing0[(1u << CKT_FILTER_BITS0) / 64];
enum { GROW_NONE, GROWING, GROWN, GROW_FAILED };
static atomic_int grow_state;
static _Atomic uint64_t live_samples;

/* Race points: tests/unit/test_sample.c builds this file a second time with CKT_TEST_RACES and
 * stalls threads at these places, so each interleaving the comments above argue about happens
 * in every run. The library has none. */
#ifdef CKT_TEST_RACES
void (*ckt_test_race)(int where);
#define RACE_POINT(where)                    \
	do {                                 \
		if (ckt_test_race)           \
			ckt_test_race(where); \
	} while (0)
#else
#define RACE_POINT(where) ((void)0)
#endif
enum {
	RACE_ADD_READ_STATE = 1, /* a new sample read the grow state, before its insert */
	RACE_CLEAR_WINDOW,       /* a release cleared its bit, before the re-check */
	RACE_GROW_SCAN,          /* the writer is scanning the set (every 4096 slots) */
	RACE_FORGET_FOUND,       /* a release found its entry, before taking it */
	RACE_CLEAR_BEFORE,       /* a release took a count to 0, before clearing the bit */
	RACE_ADD_COUNTED,        /* a new sample is counted at level 0, before its waits */
};

/* One level of the filter: its size, its bitmap, the count of live samples per bit, and per
 * word of the bitmap the releases in their clear window (below). */
struct level {
	unsigned bits;
	_Atomic uint64_t *words;
	_Atomic uint16_t *count, *clearing;
};

/* p's bit in level l */
static uint64_t bit_of(const struct level *l, uint64_t p)
{
	return ckt_filter_bit((void *)(uintptr_t)p, 64 - l->bits);
}

/* ckt_filter_state for level l: its bitmap's address and its slot function's shift */
static uint64_t state_of(const struct level *l)
{
	return (uint64_t)(uintptr_t)l->words | (uint64_t)(64 - l->bits) << 56;
}

/* Keeps bit b set while count[b] > 0, without a lock (threads may be preempted while holding
 * one: 4 busy threads on 2 cores made a spinlock here cost microseconds). A release that takes
 * a count to 0 clears the bit and re-checks the count, setting the bit again if a new sample
 * came meanwhile; but between its clear and that re-check the new sample's bit reads clear,
 * and a free of it then would be missed (a test that frees at once saw it in 1% of runs). So a
 * releaser announces itself in its word's `clearing` before its decrement, and a new sample,
 * once counted, waits until no release is in that window on its word (wait_out_clears): any
 * release that could clear its bit has announced itself by then, and leaves the bit set when
 * it is done. The wait is bounded: a releaser stopped inside its window (a signal handler that
 * blocks, a debugger) delays the samples of its own word (the 64 granules of 16 bytes that
 * the slot function puts there: 1 KiB of one 8 KiB, in 1 of 4096 words) by about a
 * millisecond each, and only those; the sample then goes on, and a free of it during the rest
 * of that window would be missed, as before this wait existed. */
static void bit_add(const struct level *l, uint64_t p)
{
	uint64_t b = bit_of(l, p);
	atomic_fetch_add(&l->count[b], 1);
	atomic_fetch_or(&l->words[b / 64], 1ull << (b % 64));
}

static void bit_sub(const struct level *l, uint64_t p)
{
	uint64_t b = bit_of(l, p), bit = 1ull << (b % 64);
	atomic_fetch_add(&l->clearing[b / 64], 1);
	if (atomic_fetch_sub(&l->count[b], 1) == 1) {
		RACE_POINT(RACE_CLEAR_BEFORE);
		atomic_fetch_and(&l->words[b / 64], ~bit);
		RACE_POINT(RACE_CLEAR_WINDOW);
		if (atomic_load(&l->count[b]))
			atomic_fetch_or(&l->words[b / 64], bit);
	}
	atomic_fetch_sub(&l->clearing[b / 64], 1);
}

/* After a sample's bit in word w was counted (bit_add): a release's window is a few
 * instructions, so this spins, then yields to a releaser that was preempted inside one; 1 ms
 * at most. */
static void wait_out_clears(const struct level *l, uint64_t w)
{
	if (!atomic_load(&l->clearing[w]))
		return;
	uint64_t t0 = 0;
	for (unsigned n = 0; atomic_load(&l->clearing[w]); n++) {
		if (n < 64) {
			__asm__ volatile("" ::: "memory");
			continue;
		}
		uint64_t t = ckt_clock_raw();
		if (!t0)
			t0 = t;
		else if (t - t0 > 1000000)
			return;
		sched_yield();
	}
}

static const struct level level0 = {CKT_FILTER_BITS0, filter0, count0, clearing0};
static struct level level1; /* set before grow_state becomes GROWING */

size_t (*ckt_usable)(void *) = malloc_usable_size;

/* ckt_usable for an allocator whose usable sizes cannot be asked (ckt_sample_init) */
static size_t usable_unknown(void *p)
{
	(void)p;
	return 0;
}
int ckt_glibc_heap, ckt_glibc_arenas;
_Atomic size_t ckt_glibc_trim = CKT_GLIBC_TRIM0;
atomic_int ckt_glibc_trim_fixed;

/* The value of the next setting of key ("glibc.malloc.xxx=") in GLIBC_TUNABLES's list from p
 * on (p: the list, or a value this returned), or NULL. */
static const char *tunable_next(const char *p, const char *key)
{
	size_t n = strlen(key);
	for (; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
		if (strncmp(p, key, n) == 0)
			return p + n;
	return NULL;
}

/* The thresholds glibc takes from the environment at its start (MALLOC_*_ variables, and
 * GLIBC_TUNABLES' glibc.malloc.* keys): any of them turns its moves off; a trim threshold is
 * the one (ckt_glibc_trim). glibc ignores them in a set-ID program; taking them all the same
 * only makes the tracer wait for frees that trim nothing. */
static void glibc_thresholds_from_env(void)
{
	static const char *const vars[] = { "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_",
					    "MALLOC_MMAP_MAX_" };
	static const char *const keys[] = { "glibc.malloc.trim_threshold=", "glibc.malloc.top_pad=",
					    "glibc.malloc.mmap_threshold=", "glibc.malloc.mmap_max=" };
	for (int k = 0; k < 4; k++) {
		/* GLIBC_TUNABLES' last match wins over the variable, as in glibc */
		const char *v = NULL;
		for (const char *p = tunable_next(getenv("GLIBC_TUNABLES"), keys[k]); p; p = tunable_next(p, keys[k]))
			v = p;
		if (!v)
			v = getenv(vars[k]);
		if (!v)
			continue;
		atomic_store(&ckt_glibc_trim_fixed, 1);
		if (k == 0)
			atomic_store(&ckt_glibc_trim, (size_t)strtoull(v, NULL, 0));
	}
}

/* Whether glibc's thread arenas have heaps of its usual 64 MiB (ckt_block_unmaps finds a
 * chunk's heap by that alignment): not when GLIBC_TUNABLES asks for hugetlb pages of a size
 * (glibc.malloc.hugetlb=2 or a page size: heaps of 4 pages, 8 MiB for 2 MiB pages, found at
 * 64 MiB a read of unmapped memory; hugetlb=1, transparent huge pages, keeps the size). */
static int glibc_arenas_usual(void)
{
	const char *key = "glibc.malloc.hugetlb=";
	for (const char *p = tunable_next(getenv("GLIBC_TUNABLES"), key); p; p = tunable_next(p, key))
		if ((p[0] != '0' && p[0] != '1') || (p[1] && p[1] != ':'))
			return 0;
	return 1;
}

/* The set of live sampled pointers: open addressing with tombstones, in up to four tables of
 * growing size (64k, 256k, 1M, 4M slots). A new table is mapped when the newest one gets
 * crowded; inserts go to the newest, lookups (rare: only when the filter bit is set) try all.
 * Starting small matters: every new sample touches a random slot, and a random page of a big
 * table is a page fault (an 8 MiB table cost 5% of the benchmark's time in first touches). */
#define TOMB 1u /* an entry is pointer | generation (bit 0), so a tombstone is pointer 0 */
#define GEN 1u
#define NSETS 4
static const unsigned set_bits[NSETS] = {16, 18, 20, 22};
static _Atomic uint64_t *_Atomic sets[NSETS];
static atomic_int set_full;

static _Atomic uint64_t *map_set(unsigned k)
{
	return ckt_ownmaps_map((1ul << set_bits[k]) * sizeof(uint64_t), MAP_NORESERVE);
}

/* real_malloc, u: malloc and malloc_usable_size as the loader binds the program's calls after
 * the tracer (ckt_real.malloc is published later). glibc's debug library, libc_malloc_debug.so,
 * defines both under their old versions only, where dlsym does not look: judged by dlsym,
 * mcheck's blocks (a header of its own before each) were read as glibc chunks (a free of 100
 * bytes read as 93 TB, the default mode recording every event). */
void ckt_sample_init_bound(void *real_malloc, void *u)
{
	/* Both modes read usable sizes (exact mode for the exit line's total, summary.c): from
	 * the allocator the program really uses, and from glibc's chunk header directly when
	 * that is glibc (its malloc_usable_size also reads the next chunk's header, a second
	 * cache miss). So this is decided for both modes, before the mode's own set-up. */
	if (u)
		ckt_usable = (size_t (*)(void *))u;
	Dl_info info, uinfo;
	int found = real_malloc && dladdr(real_malloc, &info);
	/* another copy of the tracer behind this one (LD_PRELOAD names it twice): idle, it
	 * passes every call to the allocator behind it, which defines malloc_usable_size too:
	 * judged by that. It defines none, and the default mode was turned into the exact mode
	 * with a line that named the copy as an allocator without one (0.2.49). Asked only where
	 * malloc_usable_size lies elsewhere, and of the object in memory: a dlsym of a name not
	 * defined allocates its error message through the program's malloc, which may be the
	 * allocator whose initialization is running this (rustc's jemalloc waited for its own
	 * lock for good, in a first build) */
	if (found && u && dladdr(u, &uinfo) && uinfo.dli_fbase != info.dli_fbase &&
	    ckt_elf_lookup_at(real_malloc, "cuzktrace_phase_begin") && ckt_elf_lookup_at(real_malloc, "cuMemAlloc_v2"))
		info = uinfo;
	if (found && info.dli_fname && strstr(info.dli_fname, "/libc.so.6")) {
		ckt_glibc_heap = 1;
		ckt_glibc_arenas = glibc_arenas_usual();
		glibc_thresholds_from_env();
	} else if (found && (!u || !dladdr(u, &uinfo) || uinfo.dli_fbase != info.dli_fbase)) {
		/* an allocator behind the tracer with no malloc_usable_size of its own: the next
		 * one, glibc's, read its blocks as glibc chunks (a word before the block taken for
		 * a size, the next chunk's header looked for that far on: SIGSEGV where the word
		 * was a pointer). Its sizes are unknown: 0, which the exit line's total takes as
		 * "by its request" (summary.c); the default mode needs the size of each small block
		 * at its free, so every event is recorded */
		ckt_usable = usable_unknown;
		if (ckt_config.sample) {
			ckt_log("warning: the allocator behind the tracer ('",
				info.dli_fname && info.dli_fname[0] ? info.dli_fname : "the program",
				"') has no malloc_usable_size of its own, which the default mode needs; "
				"recording every event", " (CUZKTRACE_SAMPLE=0)");
			ckt_config.sample = 0; /* the header says so */
		}
	}
	/* before the rate that turns the fast path on */
	atomic_store_explicit(&ckt_filter_state, state_of(&level0), memory_order_release);
	ckt_sample_r = ckt_config.sample;
	if (!ckt_sample_r)
		return;
	_Atomic uint64_t *m = map_set(0);
	if (!m) {
		ckt_log("error: cannot reserve the sampled-pointer set; recording every event "
			"(CUZKTRACE_SAMPLE=0)", NULL, NULL, NULL);
		ckt_sample_r = 0;
		return;
	}
	atomic_store(&sets[0], m);
}

void ckt_sample_init(void)
{
	ckt_sample_init_bound(ckt_next("malloc"), ckt_next("malloc_usable_size"));
}

static inline uint64_t slot_of(uint64_t p, unsigned bits)
{
	p ^= p >> 29;
	p *= 0xbf58476d1ce4e5b9ull;
	return (p >> 32) & ((1ull << bits) - 1);
}

/* Inserts entry v into table k: the slot, or NULL when the table is crowded (no free slot
 * within 64 probes). */
static _Atomic uint64_t *set_add_in(unsigned k, _Atomic uint64_t *set, uint64_t v)
{
	uint64_t mask = (1ull << set_bits[k]) - 1, i = slot_of(v & ~(uint64_t)GEN, set_bits[k]);
	for (unsigned n = 0; n < 64; n++, i = (i + 1) & mask) {
		uint64_t e = atomic_load_explicit(&set[i], memory_order_relaxed);
		if ((e == 0 || e == TOMB) &&
		    atomic_compare_exchange_strong_explicit(&set[i], &e, v, memory_order_seq_cst,
							    memory_order_relaxed))
			return &set[i];
	}
	return NULL;
}

/* Inserts entry v (see the filter above): the slot, or NULL when the set is full. */
static _Atomic uint64_t *set_insert(uint64_t v)
{
	for (unsigned k = 0; k < NSETS; k++) {
		_Atomic uint64_t *set = atomic_load(&sets[k]);
		if (!set) {
			_Atomic uint64_t *m = map_set(k), *expect = NULL;
			if (!m)
				break;
			if (!atomic_compare_exchange_strong(&sets[k], &expect, m)) {
				ckt_ownmaps_unmap(m, (1ul << set_bits[k]) * sizeof(uint64_t));
				m = expect; /* another thread mapped it first */
			}
			set = m;
		}
		/* older tables only while the next one does not exist yet */
		_Atomic uint64_t *slot;
		if ((k + 1 == NSETS || !atomic_load(&sets[k + 1])) && (slot = set_add_in(k, set, v)))
			return slot;
	}
	return NULL;
}

/* p (even) is a new live sample. No other thread can release it before this returns. */
static void set_add(uint64_t p)
{
	int state = atomic_load(&grow_state), gen = state == GROWING || state == GROWN;
	RACE_POINT(RACE_ADD_READ_STATE);
	if (gen)
		bit_add(&level1, p);
	_Atomic uint64_t *slot = set_insert(p | (uint64_t)gen);
	if (!slot) {
		if (gen)
			bit_sub(&level1, p);
		if (!atomic_load(&set_full) && !atomic_exchange(&set_full, 1)) {
			ckt_log("warning: the sampled-pointer set is full; some sampled frees are missed",
				NULL, NULL, NULL);
			ckt_writer_limit_reached(CKT_LIMIT_SAMPLES);
		}
		return;
	}
	bit_add(&level0, p);
	RACE_POINT(RACE_ADD_COUNTED);
	atomic_fetch_add(&live_samples, 1);
	if (!gen && ((state = atomic_load(&grow_state)) == GROWING || state == GROWN)) {
		/* the writer began to grow after the state was read (and may have finished): it
		 * may have scanned this slot before the insert. Whoever CASes the entry to
		 * generation 1 counts it there. */
		uint64_t e = p;
		bit_add(&level1, p);
		if (!atomic_compare_exchange_strong(slot, &e, p | GEN))
			bit_sub(&level1, p); /* the writer moved it (and counted it) */
		else
			gen = 1;
	}
	wait_out_clears(&level0, bit_of(&level0, p) / 64);
	if (gen)
		wait_out_clears(&level1, bit_of(&level1, p) / 64);
}

void ckt_sample_remember(void *p)
{
	set_add((uint64_t)(uintptr_t)p);
}

/* 1 if p was a live sample (and is no longer). Any thread; lock-free. */
int ckt_sample_forget(void *ptr)
{
	uint64_t p = (uint64_t)(uintptr_t)ptr;
	for (unsigned k = 0; k < NSETS; k++) {
		_Atomic uint64_t *set = atomic_load(&sets[k]);
		if (!set)
			break;
		uint64_t mask = (1ull << set_bits[k]) - 1, i = slot_of(p, set_bits[k]);
		for (unsigned n = 0; n < 64; n++, i = (i + 1) & mask) {
			uint64_t v = atomic_load_explicit(&set[i], memory_order_acquire);
			if (v == 0)
				break;
			/* the writer may move the entry to generation 1 meanwhile: then CAS again */
			if ((v & ~(uint64_t)GEN) == p)
				RACE_POINT(RACE_FORGET_FOUND);
			while ((v & ~(uint64_t)GEN) == p)
				if (atomic_compare_exchange_strong(&set[i], &v, TOMB)) {
					bit_sub(&level0, p);
					if (v & GEN)
						bit_sub(&level1, p);
					atomic_fetch_sub(&live_samples, 1);
					return 1;
				}
		}
	}
	return 0;
}

/* See the filter at the top. The writer thread only, so one grower at most. */
void ckt_sample_maintain(void)
{
	if (!ckt_sample_r || atomic_load(&grow_state) != GROW_NONE ||
	    atomic_load(&live_samples) <= CKT_FILTER_GROW)
		return;
	size_t words = (1ul << CKT_FILTER_BITS1) / 8, counts = (1ul << CKT_FILTER_BITS1) * sizeof(uint16_t),
	       clearing = (1ul << CKT_FILTER_BITS1) / 64 * sizeof(uint16_t);
	void *w = ckt_ownmaps_map(words + counts + clearing, MAP_NORESERVE);
	if (!w) {
		atomic_store(&grow_state, GROW_FAILED);
		ckt_log("warning: out of memory for the sampled-pointer filter's second level; frees of "
			"small blocks stay slower while many samples are live", NULL, NULL, NULL);
		return;
	}
	level1 = (struct level){CKT_FILTER_BITS1, w, (_Atomic uint16_t *)((char *)w + words),
				(_Atomic uint16_t *)((char *)w + words + counts)};
	atomic_store(&grow_state, GROWING); /* seq_cst: after level1, before the scan */
	for (unsigned k = 0; k < NSETS; k++) {
		_Atomic uint64_t *set = atomic_load(&sets[k]);
		if (!set)
			break;
		for (uint64_t i = 0; i < (1ull << set_bits[k]); i++) {
			if (i % 4096 == 0)
				RACE_POINT(RACE_GROW_SCAN);
			uint64_t v = atomic_load(&set[i]);
			/* a generation-0 entry; on a lost CAS, whatever the slot holds now */
			while (v > TOMB && !(v & GEN)) {
				uint64_t p = v;
				bit_add(&level1, p);
				if (atomic_compare_exchange_strong(&set[i], &v, p | GEN))
					break;
				bit_sub(&level1, p);
			}
		}
	}
	/* the entries it counted, as a new sample does: every word with a release in its window */
	for (uint64_t word = 0; word < (1ull << CKT_FILTER_BITS1) / 64; word++)
		wait_out_clears(&level1, word);
	atomic_store_explicit(&ckt_filter_state, state_of(&level1), memory_order_release);
	atomic_store(&grow_state, GROWN);
}

struct ckt_coarse ckt_coarse;
/* the writer reads agg_bytes, agg_blocks and agg_at of a live thread through one pointer */
_Static_assert(offsetof(struct ckt_tls, agg_at) == offsetof(struct ckt_tls, agg_bytes) + 16,
	       "agg_at must follow agg_bytes and agg_blocks");

/* How long before ts a total last changed at the earliest (agg_at), in the AGG slot's 32-bit
 * stack field: microseconds, at most 71 minutes (longer reads as that: a later bound, which
 * only keeps the reader from moving a peak back) */
uint32_t ckt_sample_since(uint64_t ts, uint64_t at)
{
	uint64_t us = ts > at ? (ts - at) / 1000 : 0;
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The totals are zeroed inside the busy mark, before the AGG's commit (a release fence after
 * the mark: the writer that reads them zeroed sees the mark), so the last flush, which reads
 * them beside the ring (send_pending_totals), finds each byte in one of the two: before
 * 0.2.58 they were zeroed after it, and a send committed after the last flush's snapshot
 * (a thread's first allocation after the writer's last tick) was in neither: 49 KB of a
 * worker's pending total lost at exit in 13 runs of 30. */
void ckt_sample_send(struct ckt_tls *t, int at_change)
{
	if (!t->agg_bytes && !t->agg_blocks)
		return;
	uint64_t ts = ckt_stamp(t);
	int64_t bytes = t->agg_bytes, blocks = t->agg_blocks;
	atomic_thread_fence(memory_order_release);
	__atomic_store_n(&t->agg_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->agg_blocks, 0, __ATOMIC_RELAXED);
	ckt_emit(t, CKT_EV_AGG, 0, ts, (uint64_t)bytes, (uint64_t)blocks,
		 at_change ? 0 : ckt_sample_since(ts, t->agg_at));
	if (!t->agg_final)
		t->agg_step = CKT_AGG_STEP; /* the first AGG went out at once (see ckt_tls) */
}

static uint64_t next_rand(struct ckt_tls *t)
{
	uint64_t x = t->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static int64_t draw_gap(struct ckt_tls *t)
{
	/* U in (0, 1]; gap = -ln(U) * R */
	double u = ((double)(next_rand(t) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
	return (int64_t)(-log(u) * (double)ckt_sample_r) + 1;
}

/* The thread's gap ran out during an allocation of n requested bytes at p. */
void ckt_sample_take(struct ckt_tls *t, void *p, size_t n, uint8_t fn)
{
	if (CKT_UNLIKELY(!t->rng)) {
		/* the first decision of this thread: start its Poisson process here */
		t->rng = ((uint64_t)syscall(SYS_gettid) << 32) ^ ckt_clock_raw() ^ 0x9e3779b97f4a7c15ull;
		if (!t->rng)
			t->rng = 1;
		t->sample_left += draw_gap(t);
		if (t->sample_left > 0)
			return;
	}
	t->sample_left = draw_gap(t);
	if (CKT_UNLIKELY((uintptr_t)p & GEN))
		return; /* no allocator returns odd addresses; the set's entries need bit 0 */
	/* what was counted before this sample is sent first, so the reader's totals follow the
	 * thread's program order; the sampled block itself is counted after (record_alloc), so
	 * the total that includes it comes after the sample */
	ckt_sample_flush(t);
	int e = errno; /* the set's growth maps memory, which can fail (ENOMEM): not the program's */
	set_add((uint64_t)(uintptr_t)p);
	errno = e;
	uint32_t st = ckt_stacks_capture(t);
	ckt_emit(t, CKT_EV_ALLOC, (uint8_t)(fn | CKT_FN_SAMPLED), ckt_stamp(t), (uint64_t)(uintptr_t)p, n,
		 st);
}
