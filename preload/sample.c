/* sample.c: the rare paths of the default (sampling) mode; the fast paths are inline in
 * ckt.h and hooks_malloc.c. Owns the per-thread sampling gaps, AGG flushes and the set of live
 * sampled pointers. Sampling maths as in jemalloc and tcmalloc: gaps between samples are
 * exponential with mean R bytes, so an allocation of n bytes is sampled with probability
 * 1 - exp(-n/R) and the reader weights it by the inverse. */
#include "ckt.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t ckt_sample_r;
_Atomic uint64_t ckt_sample_filter[(1u << CKT_FILTER_BITS) / 64];
static _Atomic uint16_t filter_count[1u << CKT_FILTER_BITS]; /* live samples per filter bit */

/* Keeps bit b set while filter_count[b] > 0, without a lock (threads may be preempted while
 * holding one: 4 busy threads on 2 cores made a spinlock here cost microseconds). A release
 * that clears the bit re-checks the count, so a concurrent add can only leave a spare set bit
 * (a harmless false positive), never a missing one. */
static void filter_update(const void *p, int delta)
{
	unsigned b = ckt_filter_slot(p);
	uint64_t bit = 1ull << (b % 64);
	if (delta > 0) {
		atomic_fetch_add(&filter_count[b], 1);
		atomic_fetch_or(&ckt_sample_filter[b / 64], bit);
	} else if (atomic_fetch_sub(&filter_count[b], 1) == 1) {
		atomic_fetch_and(&ckt_sample_filter[b / 64], ~bit);
		if (atomic_load(&filter_count[b]))
			atomic_fetch_or(&ckt_sample_filter[b / 64], bit);
	}
}

size_t (*ckt_usable)(void *) = malloc_usable_size;
int ckt_glibc_heap;

/* The set of live sampled pointers: open addressing with tombstones, in up to four tables of
 * growing size (64k, 256k, 1M, 4M slots). A new table is mapped when the newest one gets
 * crowded; inserts go to the newest, lookups (rare: only when the filter bit is set) try all.
 * Starting small matters: every new sample touches a random slot, and a random page of a big
 * table is a page fault (an 8 MiB table cost 5% of the benchmark's time in first touches). */
#define TOMB 1u
#define NSETS 4
static const unsigned set_bits[NSETS] = {16, 18, 20, 22};
static _Atomic uint64_t *_Atomic sets[NSETS];
static atomic_int set_full;

static _Atomic uint64_t *map_set(unsigned k)
{
	void *m = (void *)syscall(SYS_mmap, NULL, (1ul << set_bits[k]) * sizeof(uint64_t),
				  PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

void ckt_sample_init(void)
{
	/* Both modes read usable sizes (exact mode for the exit line's total, summary.c): from
	 * the allocator the program really uses, and from glibc's chunk header directly when
	 * that is glibc (its malloc_usable_size also reads the next chunk's header, a second
	 * cache miss). So this is decided for both modes, before the mode's own set-up. */
	void *u = dlsym(RTLD_NEXT, "malloc_usable_size");
	if (u)
		ckt_usable = (size_t (*)(void *))u;
	Dl_info info;
	void *real_malloc = dlsym(RTLD_NEXT, "malloc"); /* ckt_real.malloc is published later */
	if (real_malloc && dladdr(real_malloc, &info) && info.dli_fname &&
	    strstr(info.dli_fname, "/libc.so.6"))
		ckt_glibc_heap = 1;
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

static inline uint64_t slot_of(uint64_t p, unsigned bits)
{
	p ^= p >> 29;
	p *= 0xbf58476d1ce4e5b9ull;
	return (p >> 32) & ((1ull << bits) - 1);
}

/* Inserts into table k; 0 when it is crowded (no free slot within 64 probes). */
static int set_add_in(unsigned k, _Atomic uint64_t *set, uint64_t p)
{
	uint64_t mask = (1ull << set_bits[k]) - 1, i = slot_of(p, set_bits[k]);
	for (unsigned n = 0; n < 64; n++, i = (i + 1) & mask) {
		uint64_t v = atomic_load_explicit(&set[i], memory_order_relaxed);
		if ((v == 0 || v == TOMB) &&
		    atomic_compare_exchange_strong_explicit(&set[i], &v, p, memory_order_release,
							    memory_order_relaxed))
			return 1;
	}
	return 0;
}

static void set_add(uint64_t p)
{
	for (unsigned k = 0; k < NSETS; k++) {
		_Atomic uint64_t *set = atomic_load(&sets[k]);
		if (!set) {
			_Atomic uint64_t *m = map_set(k), *expect = NULL;
			if (!m)
				break;
			if (!atomic_compare_exchange_strong(&sets[k], &expect, m)) {
				syscall(SYS_munmap, m, (1ul << set_bits[k]) * sizeof(uint64_t));
				m = expect; /* another thread mapped it first */
			}
			set = m;
		}
		/* older tables only while the next one does not exist yet */
		if ((k + 1 == NSETS || !atomic_load(&sets[k + 1])) && set_add_in(k, set, p)) {
			filter_update((void *)(uintptr_t)p, 1);
			return;
		}
	}
	if (!atomic_exchange(&set_full, 1))
		ckt_log("warning: the sampled-pointer set is full; some sampled frees are missed",
			NULL, NULL, NULL);
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
			if (v == p) {
				if (!atomic_compare_exchange_strong(&set[i], &v, TOMB))
					return 0;
				filter_update(ptr, -1);
				return 1;
			}
		}
	}
	return 0;
}

void ckt_sample_flush(struct ckt_tls *t)
{
	if (!t->agg_bytes && !t->agg_blocks)
		return;
	ckt_emit(t, CKT_EV_AGG, 0, ckt_stamp(t), (uint64_t)t->agg_bytes, (uint64_t)t->agg_blocks, 0);
	t->agg_bytes = 0;
	t->agg_blocks = 0;
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
	/* what was counted before this sample is sent first, so the reader's totals follow the
	 * thread's program order; the sampled block itself is counted after (record_alloc), so
	 * the total that includes it comes after the sample */
	ckt_sample_flush(t);
	set_add((uint64_t)(uintptr_t)p);
	uint32_t st = ckt_stacks_capture(t);
	ckt_emit(t, CKT_EV_ALLOC, (uint8_t)(fn | CKT_FN_SAMPLED), ckt_stamp(t), (uint64_t)(uintptr_t)p, n,
		 st);
}
